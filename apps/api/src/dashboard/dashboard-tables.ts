/** One signed-in dashboard browser: a customer and the environments whose keys were given. */
export interface DashboardSessionsTable {
  /** SHA-256 (hex) of the session id; the id itself is only in the browser's cookie. */
  id_hash: string;
  customer_id: string;
  /** The environments the session may act in, space-separated (`sandbox`, `production`, or both). */
  environments: string;
  /** The token every form of the session carries (CSRF). */
  csrf_token: string;
  /** A one-time message for the next page (the outcome of the last action); never a secret. */
  notice: string | null;
  created_at: string;
  /** When the session ends unless used again (idle expiry, capped by the absolute one). */
  expires_at: string;
  /** When the session ends however much it is used. */
  absolute_expires_at: string;
}

declare module '../db/database.js' {
  interface Database {
    dashboard_sessions: DashboardSessionsTable;
  }
}
