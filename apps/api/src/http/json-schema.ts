/** A JSON Schema (2020-12, as in OpenAPI 3.1) as it appears in the route table. */
export type JsonSchema = { [keyword: string]: unknown };
