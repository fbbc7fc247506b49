import { vi } from 'vitest'
import { BridgeError, type ActiveSkill, type Entry, type SkillItem, type SkillsApi } from '../bridge'

/** A skill of the fake project (defaults: available, from the project). */
export type FakeSkill = Partial<SkillItem> & { name: string; body?: string }

/** A skill entry of the log as the backend records a user's activation:
 * the skill_activated event and the is_meta body with its view. */
export function skillEntries(id: string, name: string, body: string, extra: { source?: string; by?: string; state?: string } = {}): Entry[] {
  const source = extra.source ?? 'project'
  const by = extra.by ?? 'user'
  return [
    { type: 'evt', id: `e-${id}`, createdAt: '', event: 'skill_activated', data: { skill: name, source, path: `/p/.crewagent/skills/${name}/SKILL.md`, by }, ref_msg_id: id, view: { kind: 'event' } },
    {
      type: 'msg',
      id,
      createdAt: '',
      role: 'user',
      is_meta: true,
      content: `<skill name="${name}" source="${source}" base="@skill/${name}/">\nThe skill "${name}" is now active.\n\n${body}\n</skill>`,
      view: { kind: 'skill', skill: { name, source, by, state: extra.state ?? 'active', body } },
    },
  ]
}

/** The skills side of the fake bridge: the skills found, and activations
 * recorded in the fake conversations through append. */
export function createFakeSkills(skills: FakeSkill[], append: (conversationId: string, ...entries: Entry[]) => void, changed: (conversationId: string) => void) {
  const items: SkillItem[] = skills.map((s) => ({
    description: `${s.name} instructions`,
    source: 'project',
    path: `/p/.crewagent/skills/${s.name}/SKILL.md`,
    problems: [],
    status: 'available',
    files: 0,
    ...s,
  }))
  const active = new Map<string, ActiveSkill[]>()
  let seq = 0
  const usable = (name: string) => items.find((s) => s.name === name && s.status === 'available')
  const api: SkillsApi = {
    list: vi.fn(async () => ({
      skills: items.map((s) => ({ ...s })),
      locations: [
        { source: 'project', dir: '/p/.crewagent/skills' },
        { source: 'user', dir: '/home/test/.config/crewagent/skills' },
      ],
    })),
    active: vi.fn(async (id: string) => [...(active.get(id) ?? [])]),
    activate: vi.fn(async (id: string, name: string) => {
      const s = usable(name)
      if (!s) {
        const names = items.filter((i) => i.status === 'available').map((i) => i.name)
        throw new BridgeError('E_SKILL_NOT_FOUND', `there is no skill "${name}"; skills: ${names.join(', ')}`)
      }
      const list = active.get(id) ?? []
      if (list.some((a) => a.name === name)) return { conversationId: id, skill: name, status: 'already_active', active: [...list] }
      const next = [...list, { name, source: s.source, path: s.path, by: 'user', description: s.description }]
      active.set(id, next)
      append(id, ...skillEntries(`skill-${++seq}`, name, (skills.find((k) => k.name === name)?.body ?? `Instructions of ${name}.`)))
      changed(id)
      return { conversationId: id, skill: name, status: 'activated', active: [...next] }
    }),
    deactivate: vi.fn(async (id: string, name: string) => {
      const list = active.get(id) ?? []
      if (!list.some((a) => a.name === name)) return { conversationId: id, skill: name, status: 'not_active', active: [...list] }
      const next = list.filter((a) => a.name !== name)
      active.set(id, next)
      append(id, { type: 'evt', id: `d-${++seq}`, createdAt: '', event: 'skill_deactivated', data: { skill: name, by: 'user' }, view: { kind: 'event', skill: { name, by: 'user' } } })
      changed(id)
      return { conversationId: id, skill: name, status: 'deactivated', active: [...next] }
    }),
  }
  return { api, active }
}
