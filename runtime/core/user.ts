/** The user a request acts as (authenticated by auth/), as every layer sees it. */
export interface User {
  id: number;
  username: string;
  isSuperuser: boolean;
  isActive: boolean;
}
