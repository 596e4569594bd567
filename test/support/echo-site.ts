import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small site on a loopback port for the Browser Action tests: a form that echoes what was
 * submitted, and pages that reach for a private address (a sub-request, a redirect), open a popup,
 * offer a download or a file upload, set a cookie, and one that never finishes loading.
 */
const FORM = `<!doctype html><html><head><title>Order form</title></head><body>
<h1>Order</h1>
<form method="post" action="/echo">
  <label>Name <input id="name" name="name"></label>
  <label>Colour <select id="colour" name="colour"><option value="red">Red</option><option value="blue">Blue</option></select></label>
  <button type="submit">Send order</button>
</form>
<a href="/popup-target" target="_blank">Open in new window</a>
<a href="/file.csv">Get the file</a>
<input type="file" id="upload">
</body></html>`;

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

export interface EchoSite {
  origin: string;
  port: number;
  /** Every path the site was asked for, in order. */
  hits: string[];
  close(): Promise<void>;
}

export async function startEchoSite(): Promise<EchoSite> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push(`${req.method} ${path}`);
    const html = (status: number, body: string, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
    if (path === '/form') return html(200, FORM);
    if (path === '/echo' && req.method === 'POST') {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const f = new URLSearchParams(body);
        html(200, page('Received', `<p id="echo">Received order from ${f.get('name')} in ${f.get('colour')}</p>`));
      });
      return;
    }
    if (path === '/private-subrequest')
      return html(
        200,
        page(
          'Sub-request',
          '<p>Here</p><img src="http://10.0.0.7/pixel.png"><script>fetch("http://169.254.169.254/latest/meta-data/").catch(()=>{})</script>',
        ),
      );
    if (path === '/to-private') return res.writeHead(302, { location: 'http://10.0.0.7/admin' }).end();
    if (path === '/to-intranet') return res.writeHead(302, { location: 'http://intranet.acme.example/admin' }).end();
    if (path === '/to-other-host') return res.writeHead(302, { location: 'http://not-allowed.test/x' }).end();
    if (path === '/set-cookie') return html(200, page('Cookie', 'set'), { 'set-cookie': 'session=abc123; Path=/' });
    if (path === '/show-cookie')
      return html(200, page('Cookie', `<p id="c">cookie:${req.headers.cookie ?? 'none'}</p>`));
    if (path === '/file.csv')
      return res
        .writeHead(200, { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="x.csv"' })
        .end('a,b');
    if (path === '/popup-target') return html(200, page('Popup', 'popup'));
    if (path === '/never') return; // headers never sent: the page never loads
    html(404, page('Missing', 'missing'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
