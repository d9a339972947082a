/**
 * schema/menu.yaml, the web interface's menu: checked against the models (every name one of them,
 * none twice, every menu of `by_app` one of the menus) and completed, so that a model the file does
 * not name is listed under "Other" in its app's menu. The result is generated/menu.ts.
 */
import type { Menu as MenuFile } from '../generated/schema-format.js';
import type { NavigationMenu } from '../runtime/core/types.js';

export const MENU_FILE = 'menu.yaml';

/** Problems of the menu file against the models (name → app). */
export function checkMenu(menu: MenuFile, apps: Map<string, string>, problems: string[]): void {
  const where = `schema/${MENU_FILE}`;
  const seen = new Set<string>();
  for (const m of menu.menus) {
    for (const g of m.groups) {
      for (const item of g.items) {
        const name = typeof item === 'string' ? item : item.model;
        if (!apps.has(name)) problems.push(`${where}: ${m.label} › ${g.label}: '${name}' is not a model`);
        if (typeof item === 'string' && seen.has(item)) problems.push(`${where}: ${m.label} › ${g.label}: '${item}' is listed twice`);
        if (typeof item === 'string') seen.add(item);
      }
    }
  }
  const labels = new Set(menu.menus.map((m) => m.label));
  for (const [app, label] of Object.entries(menu.by_app)) if (!labels.has(label)) problems.push(`${where}: by_app.${app}: '${label}' is not a menu`);
  for (const app of new Set(apps.values())) if (!menu.by_app[app]) problems.push(`${where}: by_app: no menu for the app '${app}'`);
}

/** The menu with every model in it: the file's items, then per menu a group "Other" of the models it does not name. */
export function resolveMenu(menu: MenuFile, models: { name: string; app: string }[]): NavigationMenu[] {
  const named = new Set(menu.menus.flatMap((m) => m.groups.flatMap((g) => g.items.filter((i): i is string => typeof i === 'string'))));
  return menu.menus.map((m) => {
    const rest = models.filter((d) => !named.has(d.name) && menu.by_app[d.app] === m.label).map((d) => ({ model: d.name }));
    const groups = m.groups.map((g) => ({ label: g.label, items: g.items.map((i) => (typeof i === 'string' ? { model: i } : { model: i.model, label: i.label, url: i.url })) }));
    return { label: m.label, groups: rest.length ? [...groups, { label: 'Other', items: rest }] : groups };
  });
}
