import { createFakeBridge } from '../test/fakeBridge'
import { createSettingsStore } from './settingsStore'

describe('settingsStore', () => {
  it('loads, saves and applies the saved theme', async () => {
    const fake = createFakeBridge()
    const store = createSettingsStore(fake.bridge)
    await store.actions.load()
    const view = store.getState().view!
    expect(view.settings.llm.apiKey).toBe('••••abcd')
    expect(store.getState().theme).toBe('light')
    expect(await store.actions.save({ ...view.settings, theme: 'dark' })).toBe(true)
    expect(store.getState()).toMatchObject({ saved: true, theme: 'dark' })
  })

  it('tries a theme live and puts the saved one back when closed unsaved', async () => {
    const store = createSettingsStore(createFakeBridge().bridge)
    store.actions.show()
    await vi.waitFor(() => expect(store.getState().view).not.toBeNull())
    store.actions.previewTheme('dark')
    expect(store.getState().theme).toBe('dark')
    store.actions.hide()
    expect(store.getState()).toMatchObject({ open: false, theme: 'light' })
  })

  it('reports invalid settings and connection results', async () => {
    const store = createSettingsStore(createFakeBridge().bridge)
    await store.actions.load()
    const s = store.getState().view!.settings
    expect(await store.actions.save({ ...s, context: { ...s.context, tokenBudget: 0 } })).toBe(false)
    expect(store.getState().error?.code).toBe('E_SETTINGS_INVALID')
    const ok = await store.actions.testConnection(s)
    expect(ok?.ok).toBe(true)
    const bad = await store.actions.testConnection({ ...s, llm: { ...s.llm, baseUrl: 'http://bad:1/v1' } })
    expect(bad).toMatchObject({ ok: false, code: 'LLM_NETWORK' })
    expect(store.getState().test).toEqual(bad)
  })
})
