export const ROLES = ['customer', 'backoffice', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/** Who is calling: taken from a verified JWT (`sub`, `role`). */
export interface Caller {
  userId: string;
  role: Role;
}

/** Staff roles see every customer's data; customers see only what they own. */
export const isStaff = (caller: Caller): boolean => caller.role === 'backoffice' || caller.role === 'admin';
