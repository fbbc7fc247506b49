import type { ConversationMeta } from '../bridge'

/** One row of the conversation tree. */
export interface TreeRow {
  meta: ConversationMeta
  /** 0 for a conversation the user started; 1 for one it created, … */
  depth: number
  /** How many conversations it created (its direct children). */
  children: number
  /** Its children are hidden. */
  collapsed: boolean
}

/** Whether a conversation was created by another one (conv.create). */
export const isChild = (m: ConversationMeta) => !!m.origin?.conversationId

/** Whether a conversation is a fork (a copy the user made of another one). */
export const isFork = (m: ConversationMeta) => !!m.parentId && !isChild(m)

/** The conversations as a tree: each created conversation under the one
 * that created it, oldest first (the order they were made); the others (the
 * user's, and those whose creator was deleted) at the top, by the newest
 * activity in their branch. The children of collapsed rows are left out. */
export function conversationTree(list: ConversationMeta[], collapsed: ReadonlySet<string>): TreeRow[] {
  const byId = new Map(list.map((m) => [m.id, m]))
  const kids = new Map<string, ConversationMeta[]>()
  const roots: ConversationMeta[] = []
  for (const m of list) {
    const parent = isChild(m) ? m.parentId : undefined
    if (parent && byId.has(parent) && parent !== m.id) {
      const k = kids.get(parent) ?? []
      k.push(m)
      kids.set(parent, k)
    } else {
      roots.push(m)
    }
  }
  for (const k of kids.values()) k.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1))
  const newest = new Map<string, string>()
  const activity = (m: ConversationMeta, seen: Set<string>): string => {
    const known = newest.get(m.id)
    if (known !== undefined) return known
    let t = m.lastActiveAt
    seen.add(m.id)
    for (const c of kids.get(m.id) ?? []) {
      if (seen.has(c.id)) continue
      const ct = activity(c, seen)
      if (ct > t) t = ct
    }
    newest.set(m.id, t)
    return t
  }
  roots.sort((a, b) => {
    const ta = activity(a, new Set()),
      tb = activity(b, new Set())
    return ta < tb ? 1 : ta > tb ? -1 : a.id < b.id ? -1 : 1
  })
  const rows: TreeRow[] = []
  const walk = (m: ConversationMeta, depth: number, seen: Set<string>) => {
    if (seen.has(m.id)) return
    seen.add(m.id)
    const k = kids.get(m.id) ?? []
    const isCollapsed = collapsed.has(m.id)
    rows.push({ meta: m, depth, children: k.length, collapsed: isCollapsed })
    if (!isCollapsed) for (const c of k) walk(c, depth + 1, seen)
  }
  // Broken records that point at each other are shown at the top all the same.
  const reached = new Set<string>()
  const reach = (id: string) => {
    if (reached.has(id)) return
    reached.add(id)
    for (const c of kids.get(id) ?? []) reach(c.id)
  }
  for (const r of roots) reach(r.id)
  for (const m of list) {
    if (!reached.has(m.id)) {
      roots.push(m)
      reach(m.id)
    }
  }
  const seen = new Set<string>()
  for (const r of roots) walk(r, 0, seen)
  return rows
}

/** The ids of a conversation's ancestors, nearest first. */
export function ancestors(list: ConversationMeta[], id: string): string[] {
  const byId = new Map(list.map((m) => [m.id, m]))
  const out: string[] = []
  let m = byId.get(id)
  while (m && isChild(m) && m.parentId && byId.has(m.parentId) && m.parentId !== id && !out.includes(m.parentId)) {
    out.push(m.parentId)
    m = byId.get(m.parentId)
  }
  return out
}
