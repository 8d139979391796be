/** The form of a kit serial (the spec's `KitSerial`): 4 to 64 letters, digits and hyphens. */
const KIT_SERIAL = /^[A-Za-z0-9-]{4,64}$/;

export function isKitSerial(value: string): boolean {
  return KIT_SERIAL.test(value);
}
