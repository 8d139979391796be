/** The test apps' token signing key (TOKEN_SIGNING_KEY): tests sign tokens of their own with it. */
export const TEST_TOKEN_SIGNING_KEY = Buffer.alloc(32, 11).toString('base64');
