/**
 * Tokens: every user views, changes and deletes their own, and creates them for themselves, without
 * an object permission; other users' tokens follow object permissions (users.view_token, ...), as
 * in NetBox 3.7. Creating a token for somebody else (or moving one to them) also needs the
 * `grant` action on users.token (NetBox's users.grant_token); RESTRICT_TOKEN_CREATION withholds
 * creation from non-superusers altogether. allowed_ips must be a list of networks.
 */
import type { ModelHooks } from '../data/registry.js';
import { errors } from '../core/errors.js';
import { keyDigest } from '../core/secrets.js';
import { parseBoolean } from '../core/query-values.js';
import { parseNetwork, networkText } from '../core/ipnet.js';
import { constraintFor, loadGrants } from '../auth/permissions.js';

export const token: ModelHooks = {
  filters: {
    /** `?key=`: keys are stored as digests, so a key matches whole (`key`, `key__n`, `key__ie`) or not at all. */
    token_key(qb, values, { lookup }) {
      if (lookup === 'empty') { if (parseBoolean('key__empty', values[0])) qb.whereRaw('1 = 0'); return; }
      const negated = lookup.startsWith('n') && lookup !== 'n';
      const whole = negated ? lookup.slice(1) : lookup;
      if (whole !== 'exact' && whole !== 'ie') throw errors.badFilter(`key__${lookup}`, 'Keys are stored as digests: match a whole key (key, key__n, key__ie, key__nie).');
      const digests = values.map((v) => keyDigest(v.trim().toLowerCase()));
      if (negated) qb.whereNotIn('key_digest', digests);
      else qb.whereIn('key_digest', digests);
    },
  },
  owner(qb, userId, table) {
    qb.where(`${table}.user_id`, userId);
  },
  authorize(action, user, config) {
    return !(action === 'add' && config.restrictTokenCreation && !user.isSuperuser);
  },
  async prepare(item, { db, user }) {
    if (user && !user.isSuperuser && item.values.user_id !== undefined && item.values.user_id !== user.id
      && constraintFor(await loadGrants(db, user), 'users.token', 'grant') === 'denied') {
      throw errors.forbidden('This user does not have permission to create tokens for other users.');
    }
    if (item.values.allowed_ips !== undefined && item.values.allowed_ips !== null) {
      const list = JSON.parse(item.values.allowed_ips);
      if (!Array.isArray(list)) { item.errors.add('allowed_ips', 'Expected a list of networks.'); return; }
      const normalised: string[] = [];
      for (const value of list) {
        const n = typeof value === 'string' ? parseNetwork(value) : null;
        if (!n) item.errors.add('allowed_ips', `'${String(value)}' is not a valid network.`);
        else if (n.hostBitsSet) item.errors.add('allowed_ips', `${value} has host bits set; did you mean ${networkText(n)}?`);
        else normalised.push(networkText(n));
      }
      item.values.allowed_ips = JSON.stringify(normalised);
    }
  },
};
