import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { App } from '../../App'
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

function renderChat() {
  const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Release' }, entries: [msg('u1', 'user', 'hi')] }] })
  fake.mcpComposer.prompts.push(
    { server: 'everything', name: 'args-prompt', description: 'A prompt with two arguments', arguments: [{ name: 'city', description: 'Name of the city', required: true }, { name: 'state' }] },
    { server: 'everything', name: 'simple-prompt', description: 'A prompt without arguments' },
  )
  fake.mcpComposer.resources.push(
    { server: 'everything', uri: 'demo://resource/static/document/architecture.md', name: 'architecture.md', text: '# Architecture\nlayers' },
    { server: 'everything', uri: 'demo://resource/static/document/features.md', name: 'features.md', text: 'features' },
  )
  renderWithStores(<ChatView conversationId="c1" />, fake.bridge)
  return fake
}

const labels = () => screen.getAllByTestId('composer-menu-item').map((li) => li.querySelector('.composer-menu-label')!.textContent)

describe('the composer’s / menu and @ picker', () => {
  it('lists every command as "/" is typed, filters them, moves with the arrows, and a prompt chosen asks its arguments and fills the input', async () => {
    const fake = renderChat()
    const user = userEvent.setup()
    const input = (await screen.findByTestId('composer-input')) as HTMLTextAreaElement
    await user.type(input, '/')
    await waitFor(() => expect(labels()).toEqual(['/compact', '/args-prompt', '/simple-prompt']))
    expect(screen.getAllByTestId('composer-menu-item')[1]).toHaveTextContent('everything')
    expect(screen.getAllByTestId('composer-menu-item')[1]).toHaveTextContent('A prompt with two arguments · arguments: city [state]')
    await user.type(input, 'pro')
    expect(labels()).toEqual(['/args-prompt', '/simple-prompt'])
    expect(screen.getAllByTestId('composer-menu-item')[0]).toHaveAttribute('aria-selected', 'true')
    await user.keyboard('{ArrowDown}')
    expect(screen.getAllByTestId('composer-menu-item')[1]).toHaveAttribute('aria-selected', 'true')
    await user.keyboard('{ArrowUp}{Enter}')
    // the arguments' form: the required one must be given
    const form = await screen.findByTestId('prompt-form')
    expect(input.value).toBe('')
    expect(screen.queryByTestId('composer-menu')).toBeNull()
    expect(within(form).getByTestId('prompt-insert')).toBeDisabled()
    await user.type(within(form).getByTestId('prompt-arg-city'), 'Paris')
    await user.click(within(form).getByTestId('prompt-insert'))
    await waitFor(() => expect(input.value).toBe('Prompt args-prompt (city=Paris)'))
    expect(fake.bridge.mcp.prompt).toHaveBeenCalledWith('everything', 'args-prompt', { city: 'Paris' })
    expect(screen.queryByTestId('prompt-form')).toBeNull()
    expect(fake.sent).toEqual([]) // the user reads it and sends it
    await waitFor(() => expect(input).toHaveFocus())
    await user.keyboard('{Enter}')
    await waitFor(() => expect(fake.sent.map((s) => s.text)).toEqual(['Prompt args-prompt (city=Paris)']))
  }, 20_000)

  it('a prompt without arguments fills the input at once; Esc closes the menu; /compact typed in full still compacts', async () => {
    const fake = renderChat()
    const user = userEvent.setup()
    const input = (await screen.findByTestId('composer-input')) as HTMLTextAreaElement
    await user.type(input, '/simple')
    await waitFor(() => expect(labels()).toEqual(['/simple-prompt']))
    await user.keyboard('{Tab}')
    await waitFor(() => expect(input.value).toBe('Prompt simple-prompt'))
    await user.clear(input)
    await user.type(input, '/')
    await screen.findByTestId('composer-menu')
    await user.keyboard('{Escape}')
    expect(screen.queryByTestId('composer-menu')).toBeNull()
    await user.type(input, 'compact')
    expect(labels()).toEqual(['/compact'])
    await user.keyboard('{Enter}')
    expect(fake.compactions).toEqual([{ conversationId: 'c1', focus: '' }])
  })

  it('"@" lists the servers’ resources; the one chosen is an attachment chip that goes with the message', async () => {
    const fake = renderChat()
    const user = userEvent.setup()
    const input = (await screen.findByTestId('composer-input')) as HTMLTextAreaElement
    await user.type(input, 'explain @')
    await waitFor(() => expect(labels()).toEqual(['@architecture.md', '@features.md']))
    await user.type(input, 'feat')
    expect(labels()).toEqual(['@features.md'])
    await user.keyboard('{Enter}')
    const chip = await screen.findByTestId('attachment-chip')
    expect(chip).toHaveTextContent('features.md')
    expect(input.value).toBe('explain ')
    await user.type(input, 'this{Enter}')
    await waitFor(() => expect(fake.sent).toHaveLength(1))
    expect(fake.sent[0].text).toBe('explain this')
    expect(fake.sent[0].attachments).toEqual([{ name: 'features.md.txt', data: btoa('features') }])
  })

  it('a resource that cannot be read says why; without resources the picker says so', async () => {
    const fake = renderChat()
    const user = userEvent.setup()
    const input = (await screen.findByTestId('composer-input')) as HTMLTextAreaElement
    await user.type(input, '@arch')
    await waitFor(() => expect(labels()).toEqual(['@architecture.md']))
    fake.mcpComposer.resources.splice(0) // gone from the server since it was listed
    await user.keyboard('{Enter}')
    expect(await screen.findByRole('alert')).toHaveTextContent('reading demo://resource/static/document/architecture.md failed: not found')
    expect(screen.queryByTestId('attachment-chip')).toBeNull()
    act(() => fake.emit('mcp:status', { server: 'everything', state: 'ready', toolCount: 3 }))
    await user.clear(input)
    await user.type(input, '@')
    await waitFor(() => expect(screen.getByTestId('composer-menu-empty')).toHaveTextContent('The MCP servers that are ready offer no resources'))
  })
})

describe('a form an MCP server asks for', () => {
  const request = {
    id: 'elicit-1',
    server: 'everything',
    message: 'Please provide inputs for the following fields:',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { title: 'String', type: 'string', description: 'Your full, legal name' },
        check: { title: 'Boolean', type: 'boolean' },
        integer: { title: 'Integer', type: 'integer', minimum: 1, maximum: 100, default: 42 },
        friend: { type: 'string', enum: ['Monica', 'Rachel'], default: 'Monica' },
      },
      required: ['name'],
    },
  }

  it('is a card in the conversation, checked before it is accepted, and answered from the window', async () => {
    const fake = renderChat()
    const user = userEvent.setup()
    await screen.findByTestId('composer-input')
    act(() => fake.emit('mcp:elicitation', request))
    fake.mcpComposer.elicitations.push(request)
    const card = await screen.findByTestId('elicit-card')
    expect(card).toHaveTextContent('The MCP server everything asks')
    expect(card).toHaveTextContent('Please provide inputs for the following fields:')
    expect(within(card).getByTestId('elicit-integer')).toHaveValue(42)
    await user.click(within(card).getByTestId('elicit-accept'))
    expect(card).toHaveTextContent('Required')
    expect(fake.mcpComposer.answers).toEqual([])
    await user.type(within(card).getByTestId('elicit-name'), 'Ada Lovelace')
    await user.click(within(card).getByTestId('elicit-check'))
    await user.selectOptions(within(card).getByTestId('elicit-friend'), 'Rachel')
    await user.click(within(card).getByTestId('elicit-accept'))
    await waitFor(() => expect(screen.queryByTestId('elicit-card')).toBeNull())
    expect(fake.mcpComposer.answers).toEqual([{ id: 'elicit-1', action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 42, friend: 'Rachel' } }])
  })

  it.each(['decline', 'cancel'] as const)('can be answered with %s; a form whose call ended goes away', async (action) => {
    const fake = renderChat()
    const user = userEvent.setup()
    await screen.findByTestId('composer-input')
    fake.mcpComposer.elicitations.push(request, { ...request, id: 'elicit-2' })
    act(() => {
      fake.emit('mcp:elicitation', request)
      fake.emit('mcp:elicitation', { ...request, id: 'elicit-2' })
    })
    await waitFor(() => expect(screen.getAllByTestId('elicit-card')).toHaveLength(2))
    await user.click(within(screen.getAllByTestId('elicit-card')[0]).getByTestId(`elicit-${action}`))
    await waitFor(() => expect(screen.getAllByTestId('elicit-card')).toHaveLength(1))
    expect(fake.mcpComposer.answers).toEqual([{ id: 'elicit-1', action, content: {} }])
    act(() => fake.emit('mcp:elicitation-done', { id: 'elicit-2' }))
    await waitFor(() => expect(screen.queryByTestId('elicit-card')).toBeNull())
  })
})

describe('Settings → MCP, a remote server signed in to', () => {
  it('has a Sign out button that forgets the token', async () => {
    const project = { id: 'p1', name: 'alpha', root: '/home/me/alpha', dataDir: '/d', activePackageId: '' }
    const fake = createFakeBridge({
      folders: [project.root],
      current: project,
      conversations: [],
      mcpServers: [
        { spec: { name: 'notes', url: 'https://notes.example.com/mcp' }, source: 'settings', state: 'ready' },
        { spec: { name: 'local', command: 'node', args: ['x.js'] }, source: 'settings', state: 'ready' },
      ],
    })
    fake.mcpComposer.signedIn.push('notes')
    renderWithStores(<App />, fake.bridge)
    const user = userEvent.setup()
    await screen.findByTestId('workspace-screen')
    await user.click(screen.getByTestId('open-settings'))
    await user.click(await screen.findByTestId('settings-tab-mcp'))
    const card = (name: string) => screen.getAllByTestId('mcp-server').find((c) => c.dataset.name === name)!
    await waitFor(() => expect(within(card('notes')).getByTestId('mcp-sign-out')).toBeInTheDocument())
    expect(within(card('local')).queryByTestId('mcp-sign-out')).toBeNull()
    await user.click(within(card('notes')).getByTestId('mcp-sign-out'))
    await waitFor(() => expect(within(card('notes')).getByTestId('mcp-signed-out')).toHaveTextContent('Signed out (the token was revoked)'))
    expect(fake.bridge.mcp.signOut).toHaveBeenCalledWith('notes')
    expect(within(card('notes')).queryByTestId('mcp-sign-out')).toBeNull()
  })
})
