import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { BridgeError } from '../../bridge'
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

function renderChat(meta: { endpoint?: string; model?: string } = {}) {
  const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Release', ...meta }, entries: [msg('u1', 'user', 'hi')] }] })
  const r = renderWithStores(<ChatView conversationId="c1" />, fake.bridge)
  void r.stores.conversations.actions.refresh()
  return { fake, ...r }
}

describe('the model chip', () => {
  it('lists the endpoints with their models and records the choice for the conversation', async () => {
    const { fake } = renderChat()
    const chip = await screen.findByTestId('model-chip')
    await userEvent.click(chip)
    const menu = await screen.findByTestId('model-menu')
    expect(fake.bridge.chat.models).toHaveBeenCalledTimes(1)
    await within(menu).findByText('Default server')
    expect(within(menu).getByRole('group', { name: 'lab' })).toBeInTheDocument()
    expect(within(menu).getAllByRole('option').map((o) => o.textContent)).toEqual(['fake-modeldefault', 'fake-large', 'qwen3:8b'])
    await userEvent.click(screen.getByTestId('model-option-lab-qwen3:8b'))
    expect(fake.bridge.chat.selectModel).toHaveBeenCalledWith('c1', 'lab', 'qwen3:8b')
    await waitFor(() => expect(screen.queryByTestId('model-menu')).toBeNull())
    expect(screen.getByTestId('model-chip')).toHaveTextContent('qwen3:8blab')
    // Opened again, the current choice is marked.
    await userEvent.click(screen.getByTestId('model-chip'))
    expect(await screen.findByTestId('model-option-lab-qwen3:8b')).toHaveAttribute('aria-selected', 'true')
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByTestId('model-menu')).toBeNull()
  })

  it('shows the conversation choice it was opened with', async () => {
    renderChat({ endpoint: 'lab', model: 'qwen3:8b' })
    await waitFor(() => expect(screen.getByTestId('model-chip')).toHaveTextContent('qwen3:8blab'))
  })

  it('says why a server could not list its models, and why a choice was refused', async () => {
    const { fake } = renderChat()
    fake.endpointModels[1] = { ...fake.endpointModels[1], models: [], error: 'the server\'s model list could not be read: connection refused' }
    vi.mocked(fake.bridge.chat.selectModel).mockRejectedValueOnce(new BridgeError('SETTINGS_INVALID', 'the endpoint "lab" is no longer in the settings'))
    await userEvent.click(await screen.findByTestId('model-chip'))
    expect(await screen.findByText(/connection refused/)).toBeInTheDocument()
    await userEvent.click(screen.getByTestId('model-option-default-fake-large'))
    expect(await screen.findByRole('alert')).toHaveTextContent('no longer in the settings')
    expect(screen.getByTestId('model-menu')).toBeInTheDocument()
  })
})
