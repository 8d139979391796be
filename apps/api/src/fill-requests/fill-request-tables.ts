/** Tables of fill requests, orders, insurances and copay requests (migration 003). */
export interface FillRequestTables {}
