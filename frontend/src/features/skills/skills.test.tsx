import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { Entry } from '../../bridge'
import { evt, msg } from '../../test/entries'
import { createFakeBridge } from '../../test/fakeBridge'
import { skillEntries, type FakeSkill } from '../../test/fakeSkills'
import { renderWithStores } from '../../test/render'
import { ChatView } from '../chat/ChatView'
import { buildRows } from '../chat/messageRows'
import { SettingsScreen } from '../settings/SettingsScreen'
import { createSkillsStore } from '../../stores/skillsStore'

// jsdom has no layout: give elements a size so the virtual list renders rows.
const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})

const projectSkills: FakeSkill[] = [
  { name: 'pptx', description: 'Make slide decks with the house template.', body: '# Decks\n\nUse the **16:9** template.' },
  { name: 'release-notes', description: 'Write release notes.', source: 'user', userOnly: true },
  { name: 'hidden-helper', description: 'Only for the model.', modelOnly: true },
  { name: 'pptx', description: 'Older decks.', source: 'user', status: 'shadowed', shadowedBy: '/p/.crewagent/skills/pptx/SKILL.md' },
  {
    name: 'broken',
    description: '',
    source: 'claude-user',
    status: 'invalid',
    path: '/home/me/.claude/skills/broken/SKILL.md',
    problems: [{ file: '/home/me/.claude/skills/broken/SKILL.md', severity: 'error', message: 'the frontmatter is not valid YAML: line 2: did not find expected node content' }],
  },
]

function renderChat(entries: Entry[] = [msg('u1', 'user', 'hi'), msg('a1', 'assistant', 'Hello.')]) {
  const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Decks' }, entries }], skills: projectSkills })
  const r = renderWithStores(<ChatView conversationId="c1" />, fake.bridge)
  act(() => void r.stores.chat.actions.start()) // the workspace screen follows the events
  return { fake, ...r }
}

async function type(text: string) {
  const input = screen.getByTestId('composer-input')
  await userEvent.clear(input)
  await userEvent.type(input, `${text}{Enter}`)
}

describe('skill rows', () => {
  it('shows a skill body as one "Skill activated" row, not a bubble, and a deactivation as a divider', () => {
    const entries = [msg('u1', 'user', 'hi'), ...skillEntries('m1', 'pptx', 'Use 16:9.', { state: 'ended' }), { ...evt('d1', 'skill_deactivated', { skill: 'pptx', by: 'model' }), view: { kind: 'event', skill: { name: 'pptx', by: 'model' } } }]
    const rows = buildRows(entries)
    expect(rows.map((r) => r.kind)).toEqual(['user', 'skill', 'event'])
    const skill = rows[1]
    expect(skill.kind === 'skill' && skill.skill).toMatchObject({ name: 'pptx', state: 'ended', body: 'Use 16:9.' })
    const end = rows[2]
    expect(end.kind === 'event' && [end.label, end.detail]).toEqual(['Skill deactivated: pptx', 'by the model'])
  })

  it('keeps other meta messages hidden', () => {
    expect(buildRows([msg('m1', 'user', '<skill-prompt>x</skill-prompt>', { is_meta: true })])).toEqual([])
  })

  it('expands to the instructions the model received', async () => {
    renderChat([msg('u1', 'user', 'make a deck'), ...skillEntries('m1', 'pptx', '# Decks\n\nUse the **16:9** template.', { by: 'model' })])
    const row = await screen.findByTestId('msg-skill')
    expect(row).toHaveTextContent('Skill activated: pptx')
    expect(row).toHaveTextContent('project · by the model')
    expect(within(row).queryByTestId('skill-row-body')).toBeNull()
    expect(screen.queryAllByTestId('msg-user')).toHaveLength(1) // the body is no bubble
    await userEvent.click(within(row).getByTestId('skill-row-toggle'))
    const body = within(row).getByTestId('skill-row-body')
    expect(body.querySelector('strong')).toHaveTextContent('16:9')
    expect(within(row).getByTestId('skill-row-toggle')).toHaveAttribute('aria-expanded', 'true')
  })
})

describe('the composer and skills', () => {
  it('activates with /skill NAME without sending it, and shows the skill as a chip that deactivates it', async () => {
    const { fake } = renderChat()
    await screen.findByTestId('skill-picker-button')
    await type('/skill pptx')
    await waitFor(() => expect(screen.getByTestId('skill-chip')).toHaveAttribute('data-skill', 'pptx'))
    expect(fake.skills.api.activate).toHaveBeenCalledWith('c1', 'pptx')
    expect(fake.bridge.chat.send).not.toHaveBeenCalled()
    expect(screen.getByTestId('composer-input')).toHaveValue('')
    // the log follows: the activation is a skill row
    expect(await screen.findByTestId('msg-skill')).toHaveAttribute('data-skill', 'pptx')

    await userEvent.click(screen.getByTestId('skill-chip'))
    await waitFor(() => expect(screen.queryByTestId('skill-chip')).toBeNull())
    expect(fake.skills.api.deactivate).toHaveBeenCalledWith('c1', 'pptx')
  })

  it('deactivates with /skill off NAME', async () => {
    const { fake } = renderChat()
    await screen.findByTestId('skill-picker-button')
    await type('/skill release-notes')
    await screen.findByTestId('skill-chip')
    await type('/skill off release-notes')
    await waitFor(() => expect(screen.queryByTestId('skill-chip')).toBeNull())
    expect(fake.skills.api.deactivate).toHaveBeenCalledWith('c1', 'release-notes')
  })

  it('says why an unknown skill is refused and keeps the text to fix it', async () => {
    const { fake } = renderChat()
    await screen.findByTestId('skill-picker-button')
    await type('/skill ppt')
    expect(await screen.findByRole('alert')).toHaveTextContent('there is no skill "ppt"; skills: pptx')
    expect(screen.getByTestId('composer-input')).toHaveValue('/skill ppt')
    expect(screen.queryByTestId('skill-chip')).toBeNull()
    expect(fake.bridge.chat.send).not.toHaveBeenCalled()
  })

  it('explains a malformed command instead of sending it', async () => {
    const { fake } = renderChat()
    await screen.findByTestId('skill-picker-button')
    await type('/skill pptx make a deck')
    expect(await screen.findByRole('alert')).toHaveTextContent('is not a skill command')
    expect(fake.skills.api.activate).not.toHaveBeenCalled()
    expect(fake.bridge.chat.send).not.toHaveBeenCalled()
  })

  it('opens the picker with /skill or the button; it lists the skills the user may pick and activates one', async () => {
    const { fake } = renderChat()
    await screen.findByTestId('skill-picker-button')
    await type('/skill')
    const picker = await screen.findByTestId('skill-picker')
    const names = within(picker)
      .getAllByTestId('skill-option')
      .map((o) => o.getAttribute('data-skill'))
    expect(names).toEqual(['pptx', 'release-notes']) // not shadowed, invalid or model-only ones
    await userEvent.click(within(picker).getAllByTestId('skill-option')[0])
    await waitFor(() => expect(screen.queryByTestId('skill-picker')).toBeNull())
    expect(fake.skills.api.activate).toHaveBeenCalledWith('c1', 'pptx')
    expect(screen.getByTestId('skill-chip')).toHaveAttribute('data-skill', 'pptx')

    // the button opens it again; the active one is checked; Escape closes it
    await userEvent.click(screen.getByTestId('skill-picker-button'))
    const again = await screen.findByTestId('skill-picker')
    expect(within(again).getAllByTestId('skill-option')[0]).toHaveAttribute('aria-checked', 'true')
    fireEvent.keyDown(again, { key: 'Escape' })
    expect(screen.queryByTestId('skill-picker')).toBeNull()
  })

  it('sends ordinary messages as before', async () => {
    const { fake } = renderChat()
    await screen.findByTestId('skill-picker-button')
    await type('/skills are great')
    await waitFor(() => expect(fake.bridge.chat.send).toHaveBeenCalled())
    expect(fake.skills.api.activate).not.toHaveBeenCalled()
  })

  it('shows nothing when the project has no skills', async () => {
    const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1' }, entries: [msg('u1', 'user', 'hi')] }] })
    renderWithStores(<ChatView conversationId="c1" />, fake.bridge)
    await screen.findByTestId('msg-user')
    await waitFor(() => expect(fake.skills.api.list).toHaveBeenCalled())
    expect(screen.queryByTestId('composer-skills')).toBeNull()
  })
})

describe('Settings → Skills', () => {
  it('lists every skill with its source, path, status and problems, and the folders searched', async () => {
    const project = { id: 'p', name: 'p', root: '/p', dataDir: '/d', activePackageId: '' }
    const fake = createFakeBridge({ current: project, skills: projectSkills })
    const { stores } = renderWithStores(<SettingsScreen />, fake.bridge)
    act(() => {
      stores.projects.setState({ current: project })
      stores.settings.actions.show('skills')
    })
    const cards = await screen.findAllByTestId('skill-card')
    expect(cards.map((c) => [c.getAttribute('data-skill'), c.getAttribute('data-status')])).toEqual([
      ['pptx', 'available'],
      ['release-notes', 'available'],
      ['hidden-helper', 'available'],
      ['pptx', 'shadowed'],
      ['broken', 'invalid'],
    ])
    expect(cards[1]).toHaveTextContent('user only')
    expect(cards[3]).toHaveTextContent('hidden by /p/.crewagent/skills/pptx/SKILL.md')
    expect(within(cards[4]).getByTestId('skill-problems')).toHaveTextContent('error')
    expect(cards[4]).toHaveTextContent('the frontmatter is not valid YAML')
    expect(cards[4]).toHaveTextContent('/home/me/.claude/skills/broken/SKILL.md')
    expect(screen.getByTestId('skills-summary')).toHaveTextContent('3 skills ready to use, 1 folder that cannot be used')
    expect(screen.getByTestId('skill-locations')).toHaveTextContent('/p/.crewagent/skills')
  })
})

describe('skills store', () => {
  it('lists again on skills:changed and follows the open conversation', async () => {
    const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1' } }], skills: projectSkills })
    const store = createSkillsStore(fake.bridge)
    const off = store.actions.start()
    await store.actions.open('c1')
    expect(fake.skills.api.active).toHaveBeenCalledTimes(1)
    fake.emit('skills:changed', { skills: 3, invalid: 1 })
    await waitFor(() => expect(fake.skills.api.list).toHaveBeenCalledTimes(1))
    fake.emit('conversation:changed', { conversationId: 'c1', kind: 'updated' })
    fake.emit('conversation:changed', { conversationId: 'other', kind: 'updated' })
    await waitFor(() => expect(fake.skills.api.active).toHaveBeenCalledTimes(3))
    off()
    expect(fake.listenerCount('skills:changed')).toBe(0)
  })
})
