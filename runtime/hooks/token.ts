/**
 * Tokens: every user views, changes and deletes their own, and creates them for themselves, without
 * an object permission; other users' tokens follow object permissions (users.view_token, ...), as
 * in NetBox 3.7. Creating a token for somebody else (or moving one to them) also needs the
 * `grant` action on users.token (NetBox's users.grant_token); RESTRICT_TOKEN_CREATION withholds
 * creation from non-superusers altogether. allowed_ips must be a list of networks.
 *
 * A v2 token (NetBox 4.5+, the default through the 4.6 API) is `nbt_<key>.<secret>`: the 12-character
 * key is stored as it is (it finds the row), the 40-character secret only as an HMAC keyed with the
 * current pepper (runtime/auth/peppers.ts), with that pepper's id. Its plaintext is in the creating
 * answer only: `token` (the secret) in 4.6, `key` (the whole `nbt_...` value) in 3.7.
 */
import type { ModelHooks, WriteItem } from '../data/registry.js';
import type { RuleSettings } from '../data/write-context.js';
import { errors } from '../core/errors.js';
import { keyDigest, randomAlphanumeric, tokenHmac } from '../core/secrets.js';
import { parseBoolean } from '../core/query-values.js';
import { parseNetwork, networkText } from '../core/ipnet.js';
import { constraintFor, loadGrants } from '../auth/permissions.js';

/** NetBox's lengths: a v2 key of 12 letters and digits, a secret of 40. */
const V2_KEY_LENGTH = 12;
const SECRET_LENGTH = 40;
const V2_KEY = /^(?:nbt_)?([A-Za-z0-9]{12})$/;

/** A new token's columns by version: v2 replaces the generated 40-hex key with a key, a secret and its digest. */
function setVersion(item: WriteItem, rules: RuleSettings | undefined): void {
  const version = Number(item.values.version ?? 1);
  if (version !== 2) {
    item.values.v2_key = null;
    item.values.pepper_id = null;
    if (item.reveal.key !== undefined) item.reveal.token = item.reveal.key;
    return;
  }
  const peppers = rules?.tokenPeppers;
  if (!peppers) { item.errors.add('version', 'Unable to save v2 tokens: API_TOKEN_PEPPERS is not defined.'); return; }
  if (typeof item.input.key === 'string' && item.input.key !== '') { item.errors.add('key', 'A v2 token\'s key and secret are generated; give no key.'); return; }
  const key = randomAlphanumeric(V2_KEY_LENGTH);
  const secret = randomAlphanumeric(SECRET_LENGTH);
  item.values.v2_key = key;
  item.values.pepper_id = peppers.current.id;
  item.values.key_digest = tokenHmac(peppers.current.pepper, secret);
  item.values.key_hint = `nbt_${key}.${'*'.repeat(8)}`;
  item.reveal.key = `nbt_${key}.${secret}`;
  item.reveal.token = secret;
}

export const token: ModelHooks = {
  filters: {
    /**
     * `?key=`: v1 keys are stored as digests, so a key matches whole (`key`, `key__n`, `key__ie`) or not
     * at all; a v2 token's 12-character key (with or without `nbt_`) matches as it is.
     */
    token_key(qb, values, { lookup }) {
      if (lookup === 'empty') { if (parseBoolean('key__empty', values[0])) qb.whereRaw('1 = 0'); return; }
      const negated = lookup.startsWith('n') && lookup !== 'n';
      const whole = negated ? lookup.slice(1) : lookup;
      if (whole !== 'exact' && whole !== 'ie') throw errors.badFilter(`key__${lookup}`, 'Keys are stored as digests: match a whole key (key, key__n, key__ie, key__nie).');
      const v2 = values.map((v) => V2_KEY.exec(v.trim())?.[1]).filter((v): v is string => !!v);
      const digests = values.filter((v) => !V2_KEY.test(v.trim())).map((v) => keyDigest(v.trim().toLowerCase()));
      const match = (q: typeof qb) => q.whereIn('key_digest', digests).orWhereIn('v2_key', v2);
      if (negated) qb.whereNot(match);
      else qb.where(match);
    },
    /** `?version=2`, `version__lt=2`...: compared as read, a token stored without a version being v1 */
    token_version(qb, values, { lookup }) {
      const name = lookup === 'exact' ? 'version' : `version__${lookup}`;
      if (lookup === 'empty') { if (parseBoolean(name, values[0])) qb.whereRaw('1 = 0'); return; }
      const op = ({ exact: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' } as Record<string, string>)[lookup];
      const numbers = values.map((v) => {
        if (!/^\d+$/.test(v.trim())) throw errors.badFilter(name, 'Enter a whole number.');
        return Number(v);
      });
      qb.where((w) => { for (const n of numbers) w.orWhereRaw(`coalesce(version, 1) ${op} ?`, [n]); });
    },
  },
  owner(qb, userId, table) {
    qb.where(`${table}.user_id`, userId);
  },
  authorize(action, user, config) {
    return !(action === 'add' && config.restrictTokenCreation && !user.isSuperuser);
  },
  async prepare(item, { db, user, rules }) {
    if (user && !user.isSuperuser && item.values.user_id !== undefined && item.values.user_id !== user.id
      && constraintFor(await loadGrants(db, user), 'users.token', 'grant') === 'denied') {
      throw errors.forbidden('This user does not have permission to create tokens for other users.');
    }
    if (!item.existing) setVersion(item, rules);
    else if (item.values.version !== undefined && Number(item.values.version) !== Number(item.existing.version ?? 1)) {
      item.errors.add('version', 'A token\'s version cannot be changed; create a new token.');
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
