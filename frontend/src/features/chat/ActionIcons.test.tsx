// The actions under a message: icons with a name and a tooltip in the
// language in use, 28 px targets, colours that keep 4.5:1 on the page in
// both themes, always shown under the latest answer and the latest message
// of the user, and reached with Tab.
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Entry } from '../../bridge'
import { applyLanguage } from '../../i18n'
import { color, contrast, theme } from '../../test/contrast'
import { msg } from '../../test/entries'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { ChatView } from './ChatView'

const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})
afterEach(() => applyLanguage('en'))

function renderChat(entries: Entry[]) {
  const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Trip' }, entries }] })
  const r = renderWithStores(<ChatView conversationId="c1" />, fake.bridge)
  r.stores.chat.actions.start() // the workspace follows the conversation's events
  return { fake, ...r }
}

const history = (): Entry[] => [
  msg('u1', 'user', 'Where should we go?'),
  msg('a1', 'assistant', 'The lake.'),
  msg('u2', 'user', 'When?'),
  msg('a2', 'assistant', 'In June.', { view: { kind: 'assistant', branch: { after: 'u2', index: 2, count: 2, reason: 'regenerate' } } }),
]

const shown = (row: HTMLElement) => within(row).getByTestId('msg-actions').dataset.shown

describe('message actions', () => {
  it.each([
    ['ends with an answer', history(), { u1: 'false', a1: 'false', u2: 'true', a2: 'true' }],
    ['ends with a message of the user', [...history(), msg('u3', 'user', 'And the budget?')], { u1: 'false', a1: 'false', u2: 'false', a2: 'false', u3: 'true' }],
  ])('are always shown under the latest message of each side when the conversation %s', async (_, entries, want) => {
    renderChat(entries)
    await screen.findAllByTestId('msg-assistant')
    const rows = [...screen.getAllByTestId('msg-user'), ...screen.getAllByTestId('msg-assistant')]
    expect(Object.fromEntries(rows.map((r) => [r.dataset.id, shown(r)]))).toEqual(want)
  })

  it('are icons, each with a name and a tooltip, in English and in Chinese', async () => {
    const names = (row: HTMLElement) =>
      within(row)
        .getAllByRole('button')
        .map((b) => {
          expect(b.querySelector('svg[aria-hidden="true"]')).not.toBeNull()
          expect(b.textContent).toBe('') // nothing but the icon
          expect(b.title).not.toBe('')
          return b.getAttribute('aria-label')
        })
    const { unmount } = renderChat(history())
    const answer = (await screen.findAllByTestId('msg-assistant')).at(-1)!
    const user = screen.getAllByTestId('msg-user')[1]
    expect(names(answer)).toEqual(['Previous version of this answer', 'Next version of this answer', 'Copy', 'Regenerate', 'Pin', 'Fork'])
    expect(names(user)).toEqual(['Copy', 'Edit', 'Pin', 'Fork', 'Rewind to here'])
    expect(within(user).getByTestId('msg-edit').title).toBe('Edit this message and send it again as a new version')
    unmount()

    applyLanguage('zh-CN')
    renderChat(history())
    const zh = (await screen.findAllByTestId('msg-user'))[1]
    expect(names(zh)).toEqual(['复制', '编辑', '置顶', '分叉', '回退到这里'])
    expect(within(zh).getByTestId('msg-copy').title).toBe('复制这条消息的文字')
  })

  it('say pinned by a pressed, filled pin under the same name', async () => {
    const { fake } = renderChat(history())
    const pin = within((await screen.findAllByTestId('msg-user'))[0]).getByTestId('msg-pin')
    expect(pin).toHaveAttribute('aria-pressed', 'false')
    await userEvent.click(pin)
    expect(fake.bridge.context.pin).toHaveBeenCalledWith('c1', 'u1')
    await vi.waitFor(() => expect(within(screen.getAllByTestId('msg-user')[0]).getByTestId('msg-pin')).toHaveAttribute('aria-pressed', 'true'))
    const pinned = within(screen.getAllByTestId('msg-user')[0]).getByTestId('msg-pin')
    expect(pinned).toHaveAccessibleName('Pin')
    expect(pinned).toHaveClass('is-pinned')
  })

  it('are reached with Tab, in the order they are shown', async () => {
    renderChat(history())
    const answer = (await screen.findAllByTestId('msg-assistant')).at(-1)!
    const user = screen.getAllByTestId('msg-user')[1]
    const seen: string[] = []
    for (let i = 0; i < 80 && seen.at(-1) !== 'a2:msg-fork'; i++) {
      await userEvent.tab()
      const el = document.activeElement as HTMLElement | null
      const row = el?.closest<HTMLElement>('[data-testid="msg-user"], [data-testid="msg-assistant"]')
      if (el?.dataset.testid && row) seen.push(`${row.dataset.id}:${el.dataset.testid}`)
    }
    expect(seen.filter((s) => s.startsWith('u2:') || s.startsWith('a2:'))).toEqual([
      'u2:msg-copy',
      'u2:msg-edit',
      'u2:msg-pin',
      'u2:msg-fork',
      'u2:msg-rewind',
      // the first version of the answer can be chosen; the last one is shown
      'a2:branch-prev',
      'a2:msg-copy',
      'a2:msg-regenerate',
      'a2:msg-pin',
      'a2:msg-fork',
    ])
    expect(answer.contains(document.activeElement)).toBe(true)
    expect(user.contains(document.activeElement)).toBe(false)
  })
})

/** The rules of the chat's stylesheets: selector → declarations. */
function rules(): [string, Map<string, string>][] {
  const out: [string, Map<string, string>][] = []
  for (const f of ['chat.css', 'contextRows.css']) {
    const css = readFileSync(resolve(process.cwd(), 'src/features/chat', f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')
    for (const m of css.matchAll(/([^{}]+)\{([^}]*)\}/g)) {
      const decls = new Map([...m[2].matchAll(/([\w-]+)\s*:\s*([^;]+);/g)].map((d) => [d[1], d[2].trim()]))
      for (const sel of m[1].split(',')) out.push([sel.trim(), decls])
    }
  }
  return out
}

const token = (v: string | undefined) => /^var\((--[\w-]+)\)$/.exec(v ?? '')?.[1]

describe('the look of the message actions', () => {
  const all = rules()
  const of = (sel: string) => all.find(([s]) => s === sel)?.[1] ?? new Map<string, string>()

  it('gives every action a target of at least 28 × 28 px', () => {
    const base = of('.msg-icon-action')
    expect(parseFloat(base.get('min-width') ?? '0')).toBeGreaterThanOrEqual(28)
    expect(parseFloat(base.get('min-height') ?? '0')).toBeGreaterThanOrEqual(28)
    // no later rule shrinks them (the switcher's steps take off only padding)
    const shrink = all.filter(([s, d]) => /msg-icon-action|branch-step|pin-control/.test(s) && s !== '.msg-icon-action' && ['width', 'height', 'min-width', 'min-height', 'max-width', 'max-height'].some((p) => d.has(p)))
    expect(shrink.map(([s]) => s)).toEqual([])
  })

  // Each colour an action's icon takes (at rest, hovered, copied, failed,
  // pinned, the version count) on the backgrounds it sits on: the page, a
  // card, and the hover background.
  const colours = all.filter(([s, d]) => /msg-icon-action|pin-control|branch-switcher/.test(s) && !s.includes(':disabled') && d.has('color'))
  const hoverBg = token(of('.msg-icon-action:hover:not(:disabled)').get('background'))

  it('reads every colour from the tokens', () => {
    expect(colours.length).toBeGreaterThanOrEqual(5)
    expect(colours.filter(([, d]) => !token(d.get('color'))).map(([s]) => s)).toEqual([])
    expect(hoverBg).toBe('--surface-2')
  })

  for (const name of ['light', 'dark'] as const) {
    it(`keeps each icon at 4.5:1 or more in the ${name} theme`, () => {
      const t = theme(name)
      const low: string[] = []
      for (const [sel, d] of colours) {
        const fg = token(d.get('color'))!
        for (const bg of ['--bg', '--surface', hoverBg!]) {
          const r = contrast(color(t, fg), color(t, bg))
          if (r < 4.5) low.push(`${sel} (${fg}) on ${bg}: ${r.toFixed(2)}`)
        }
      }
      expect(low).toEqual([])
    })
  }
})
