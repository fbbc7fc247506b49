/** The composer's menus: "/" lists every command (/compact, /skill, the
 * skills one can activate, the MCP servers' prompts), "@" the MCP servers'
 * resources; both are filtered by what follows the sign as it is typed. */
import type { McpPrompt, McpResource } from '../../bridge'

export type MenuItem =
  | { kind: 'compact'; key: string; label: string; detail: string }
  | { kind: 'skills'; key: string; label: string; detail: string }
  | { kind: 'skill'; key: string; label: string; detail: string; skill: string }
  | { kind: 'prompt'; key: string; label: string; detail: string; badge: string; prompt: McpPrompt }
  | { kind: 'resource'; key: string; label: string; detail: string; badge: string; resource: McpResource }

/** What is typed after a leading "/" (the text is one line starting with
 * it), or null when the text is no command being typed. */
export function slashQuery(text: string): string | null {
  if (!text.startsWith('/') || text.includes('\n')) return null
  return text.slice(1)
}

/** The "@" word the caret is in: where it starts and what follows the sign;
 * null when the caret is in no such word. */
export function atQuery(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret)
  const m = /(^|\s)@([^\s@]*)$/.exec(before)
  if (!m) return null
  return { start: before.length - m[2].length - 1, query: m[2] }
}

/** The text without the "@" word at start (and the caret where it was). */
export function withoutAt(text: string, start: number, caret: number): { text: string; caret: number } {
  let end = caret
  while (end < text.length && !/\s/.test(text[end])) end++
  let rest = text.slice(end)
  if ((start === 0 || /\s/.test(text[start - 1])) && rest.startsWith(' ')) rest = rest.slice(1)
  return { text: text.slice(0, start) + rest, caret: start }
}

/** The slash commands, in the order the menu shows them: /compact, /skill
 * and the skills (when there are any), the prompts. */
export function slashItems(opts: {
  skills: { name: string; description?: string }[]
  prompts: McpPrompt[]
  words: { compact: string; skills: string; skill: (description: string) => string; promptArgs: (args: string) => string }
}): MenuItem[] {
  const items: MenuItem[] = [{ kind: 'compact', key: 'compact', label: '/compact', detail: opts.words.compact }]
  // The skill picker only where there are skills to pick.
  if (opts.skills.length > 0) items.push({ kind: 'skills', key: 'skills', label: '/skill', detail: opts.words.skills })
  for (const s of opts.skills) items.push({ kind: 'skill', key: `skill:${s.name}`, label: `/skill ${s.name}`, detail: opts.words.skill(s.description ?? ''), skill: s.name })
  for (const p of opts.prompts) {
    const args = (p.arguments ?? []).map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ')
    const what = p.description || p.title || ''
    items.push({
      kind: 'prompt',
      key: `prompt:${p.server}:${p.name}`,
      label: `/${p.name}`,
      detail: [what, args && opts.words.promptArgs(args)].filter(Boolean).join(' · '),
      badge: p.server,
      prompt: p,
    })
  }
  return items
}

/** The resources as items of the "@" menu. */
export function resourceItems(resources: McpResource[]): MenuItem[] {
  return resources.map((r) => ({
    kind: 'resource',
    key: `resource:${r.server}:${r.uri}`,
    label: `@${r.title || r.name || r.uri}`,
    detail: r.description ? `${r.uri} · ${r.description}` : r.uri,
    badge: r.server,
    resource: r,
  }))
}

/** The items matching query: those whose command starts with it first, then
 * those naming it elsewhere (label, server, description). An empty query
 * keeps them all. */
export function filterItems(items: MenuItem[], query: string): MenuItem[] {
  const q = query.toLowerCase()
  if (!q) return items
  const name = (i: MenuItem) => i.label.slice(1).toLowerCase()
  const first = items.filter((i) => name(i).startsWith(q))
  const other = items.filter((i) => !name(i).startsWith(q) && !/\s/.test(q) && `${name(i)} ${'badge' in i ? i.badge : ''} ${i.detail}`.toLowerCase().includes(q))
  return [...first, ...other]
}
