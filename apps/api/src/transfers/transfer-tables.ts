/** Tables of transfers, direct transfers and prescribers (migration 002). */
export interface TransferTables {}
