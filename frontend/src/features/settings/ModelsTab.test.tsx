import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { App } from '../../App'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'

async function openModels() {
  const fake = createFakeBridge({ overrides: [] })
  const user = userEvent.setup()
  renderWithStores(<App />, fake.bridge)
  await user.click(await screen.findByTestId('open-settings'))
  await screen.findByTestId('settings-form', {}, { timeout: 10000 })
  await user.click(await screen.findByTestId('settings-tab-models', {}, { timeout: 10000 }))
  return { fake, user }
}

const saved = (fake: ReturnType<typeof createFakeBridge>) => vi.mocked(fake.bridge.settings.save).mock.calls.at(-1)![0]

describe('Settings → Models', () => {
  it('adds a server with its key and models, a price, and the request shape; they are saved as edited', async () => {
    const { fake, user } = await openModels()
    expect(screen.getByTestId('endpoints-empty')).toBeInTheDocument()
    await user.click(screen.getByTestId('endpoint-add'))
    await user.type(screen.getByTestId('endpoint-name-0'), 'lab')
    await user.type(screen.getByTestId('endpoint-url-0'), 'http://127.0.0.1:8000/v1')
    await user.type(screen.getByTestId('endpoint-key-0'), 'sk-lab')
    await user.type(screen.getByTestId('endpoint-models-0'), 'qwen3:8b, gemma3:4b')
    await user.selectOptions(screen.getByTestId('set-llm.requestShape'), 'alternating-no-system')
    expect(screen.getByText(/Gemma templates/)).toBeInTheDocument()
    await user.selectOptions(screen.getByTestId('set-llm.reasoningEffort'), 'low')
    await user.type(screen.getByTestId('set-llm.currency'), 'EUR')
    await user.type(screen.getByTestId('price-new'), 'qwen3:8b')
    await user.click(screen.getByTestId('price-add'))
    const row = screen.getByTestId('price-qwen3:8b')
    await user.type(within(row).getByTestId('price-input-qwen3:8b'), '0,2')
    await user.type(within(row).getByTestId('price-output-qwen3:8b'), '0.8')
    expect(await screen.findByTestId('settings-saved')).toBeInTheDocument()
    const s = saved(fake)
    expect(s.llm.endpoints).toEqual([{ name: 'lab', baseUrl: 'http://127.0.0.1:8000/v1', apiKey: 'sk-lab', models: ['qwen3:8b', 'gemma3:4b'] }])
    expect(s.llm.requestShape).toBe('alternating-no-system')
    expect(s.llm.reasoningEffort).toBe('low')
    expect(s.llm.currency).toBe('EUR')
    expect(s.llm.prices).toEqual({ 'qwen3:8b': { input: 0.2, output: 0.8 } })
  })

  it('a price that is not a number is marked and not taken; a server is removed', async () => {
    const { fake, user } = await openModels()
    await user.click(screen.getByTestId('endpoint-add'))
    expect(screen.getAllByTestId('endpoint-row')).toHaveLength(1)
    await user.click(screen.getByTestId('endpoint-remove-0'))
    expect(screen.queryByTestId('endpoint-row')).toBeNull()
    await user.type(screen.getByTestId('price-new'), 'm')
    await user.click(screen.getByTestId('price-add'))
    const input = screen.getByTestId('price-input-m')
    await user.type(input, 'two')
    expect(input).toHaveAttribute('aria-invalid', 'true')
    expect(await screen.findByTestId('settings-saved')).toBeInTheDocument()
    expect(saved(fake).llm.prices).toEqual({ m: { input: 0, output: 0 } })
    expect(saved(fake).llm.endpoints).toEqual([])
  })
})
