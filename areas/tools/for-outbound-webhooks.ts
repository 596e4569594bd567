/** What the outbound-webhooks area uses of the tools area: the HTTP tool's guard on where a call may connect. */
export { isAllowedTarget, isLoopbackAddress, publicAddressOf } from './executors/address-guard.ts';
