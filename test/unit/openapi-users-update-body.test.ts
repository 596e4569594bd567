import { describe, expect, it } from 'vitest';
import { apiDocument } from '#api/openapi/api-document.ts';

type Schema = Record<string, unknown>;
const doc = apiDocument() as unknown as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (s: Schema): Schema =>
  typeof s.$ref === 'string' ? resolve(doc.components.schemas[s.$ref.split('/').pop()!]!) : s;

describe('PUT /api/users/{userId} in the API document', () => {
  it('shows the body it requires (the update, or the admin password reset), not {}', () => {
    const body = resolve(doc.paths['/api/users/{userId}']!.put!.requestBody!.content['application/json']!.schema);
    const forms = ((body.anyOf ?? body.oneOf ?? []) as Schema[]).map(resolve);
    expect(forms).toHaveLength(2);
    const update = forms.find((f) => (f.properties as Schema | undefined)?.firstName)!;
    expect(update.required).toEqual(expect.arrayContaining(['firstName', 'lastName', 'roles', 'isActive']));
    expect(Object.keys(update.properties as Schema)).toEqual(expect.arrayContaining(['phoneNumber', 'departmentId']));
    const reset = forms.find((f) => (f.properties as Schema | undefined)?.newPassword)!;
    expect(reset.required).toEqual(['newPassword']);
  });
});
