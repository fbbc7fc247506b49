import { act, fireEvent, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { msg } from '../../test/entries'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { App } from '../../App'
import { isTextField, matchConversations, shortcutOf } from './shortcuts'

const project = { id: 'p1', name: 'alpha', root: '/home/me/alpha', dataDir: '/home/x/projects/p1', activePackageId: '' }

const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})

const key = (k: string, mods: { ctrl?: boolean; meta?: boolean; shift?: boolean; alt?: boolean } = {}) => ({
  key: k,
  ctrlKey: !!mods.ctrl,
  metaKey: !!mods.meta,
  shiftKey: !!mods.shift,
  altKey: !!mods.alt,
})

describe('window shortcuts', () => {
  const input = () => Object.assign(document.createElement('input'), { type: 'text' })
  const box = () => Object.assign(document.createElement('input'), { type: 'checkbox' })
  it.each([
    ['Ctrl+K', key('k', { ctrl: true }), null, 'switcher'],
    ['Cmd+K', key('K', { meta: true }), null, 'switcher'],
    ['Ctrl+K in a text field', key('k', { ctrl: true }), input(), 'switcher'],
    ['Ctrl+F', key('f', { ctrl: true }), input(), 'find'],
    ['Ctrl+Shift+F', key('F', { ctrl: true, shift: true }), null, null],
    ['? on the page', key('?', { shift: true }), null, 'sheet'],
    ['? on a checkbox', key('?', { shift: true }), box(), 'sheet'],
    ['? typed in a field', key('?', { shift: true }), input(), null],
    ['? typed in a textarea', key('?', { shift: true }), document.createElement('textarea'), null],
    ['a letter', key('k'), null, null],
  ])('reads %s', (_, e, focused, want) => {
    expect(shortcutOf(e, focused)).toBe(want)
  })

  it('tells text fields from other controls', () => {
    expect([isTextField(input()), isTextField(box()), isTextField(document.createElement('select')), isTextField(null)]).toEqual([true, false, false, false])
  })

  it('finds conversations by every word of their title, the latest first', () => {
    const list = [
      { id: 'a', title: 'Plan the offsite', lastActiveAt: '2026-01-01' },
      { id: 'b', title: 'Offsite budget', lastActiveAt: '2026-03-01' },
      { id: 'c', title: 'Release notes', lastActiveAt: '2026-02-01' },
    ]
    expect(matchConversations(list, '').map((c) => c.id)).toEqual(['b', 'c', 'a'])
    expect(matchConversations(list, 'OFFSITE').map((c) => c.id)).toEqual(['b', 'a'])
    expect(matchConversations(list, 'offsite plan').map((c) => c.id)).toEqual(['a'])
    expect(matchConversations(list, 'nothing')).toEqual([])
  })
})

describe('in the window', () => {
  function renderWorkspace() {
    const fake = createFakeBridge({
      folders: ['/home/me/alpha'],
      current: project,
      conversations: [
        {
          meta: { id: 'c1', title: 'Offsite planning' },
          entries: [msg('u1', 'user', 'Where do we meet?'), msg('a1', 'assistant', 'At the lakeside hall.'), msg('u2', 'user', 'And the budget?'), msg('a2', 'assistant', 'The budget is 4711 EUR.')],
        },
        { meta: { id: 'c2', title: 'Release notes', lastActiveAt: '2020-01-01T00:00:00Z' } },
      ],
    })
    renderWithStores(<App />, fake.bridge)
    return fake
  }

  it('Ctrl+K opens the switcher; typing narrows it and Enter opens the conversation', async () => {
    renderWorkspace()
    await screen.findAllByTestId('conv-item')
    fireEvent.keyDown(window, { key: 'k', ctrlKey: true })
    const dialog = await screen.findByTestId('switcher')
    expect(within(dialog).getAllByTestId('switcher-item').map((i) => i.dataset.id)).toEqual(['c1', 'c2'])
    await userEvent.type(within(dialog).getByTestId('switcher-input'), 'release')
    expect(within(dialog).getAllByTestId('switcher-item').map((i) => i.dataset.id)).toEqual(['c2'])
    await userEvent.keyboard('{Enter}')
    expect(screen.queryByTestId('switcher')).toBeNull()
    expect((await screen.findByTestId('chat-view')).dataset.conversation).toBe('c2')
  })

  it('? shows the sheet of shortcuts, but not while typing', async () => {
    renderWorkspace()
    await screen.findAllByTestId('conv-item')
    fireEvent.keyDown(window, { key: '?', shiftKey: true })
    const sheet = await screen.findByTestId('shortcuts-sheet')
    expect(within(sheet).getAllByTestId('shortcut-row').length).toBeGreaterThan(8)
    expect(sheet).toHaveTextContent('Go to a conversation')
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByTestId('shortcuts-sheet')).toBeNull()
    const search = document.querySelector<HTMLInputElement>('input:not([type=checkbox])')!
    search.focus()
    fireEvent.keyDown(search, { key: '?', shiftKey: true })
    expect(screen.queryByTestId('shortcuts-sheet')).toBeNull()
  })

  it('Ctrl+F finds words in the conversation, counts the hits and marks the row shown', async () => {
    renderWorkspace()
    const item = (await screen.findAllByTestId('conv-item')).find((el) => el.textContent?.includes('Offsite'))!
    await userEvent.click(within(item).getByTestId('conv-open'))
    await screen.findByText('The budget is 4711 EUR.')
    fireEvent.keyDown(window, { key: 'f', ctrlKey: true })
    const field = await screen.findByTestId('find-input')
    expect(field).toHaveFocus()
    await userEvent.type(field, 'budget')
    await vi.waitFor(() => expect(screen.getByTestId('find-count')).toHaveTextContent('1 of 2'))
    const marked = () => document.querySelector('[data-find]')?.textContent
    await vi.waitFor(() => expect(marked()).toContain('And the budget?'))
    await userEvent.keyboard('{Enter}')
    await vi.waitFor(() => expect(screen.getByTestId('find-count')).toHaveTextContent('2 of 2'))
    await vi.waitFor(() => expect(marked()).toContain('4711 EUR'))
    await userEvent.keyboard('{Shift>}{Enter}{/Shift}')
    await vi.waitFor(() => expect(screen.getByTestId('find-count')).toHaveTextContent('1 of 2'))
    await userEvent.clear(field)
    await userEvent.type(field, 'zebra')
    await vi.waitFor(() => expect(screen.getByTestId('find-count')).toHaveTextContent('No match'))
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByTestId('find-bar')).toBeNull()
    await act(async () => {})
  })
})
