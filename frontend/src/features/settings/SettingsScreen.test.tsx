import { createDisplayStore, displayKey } from '../../stores/displayStore'
import { i18n } from '../../i18n'
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { App } from '../../App'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { settingsTabs } from './tabs'

async function openSettings(opts: Parameters<typeof createFakeBridge>[0] = {}) {
  const fake = createFakeBridge({ overrides: [], ...opts })
  const user = userEvent.setup()
  const r = renderWithStores(<App />, fake.bridge)
  await user.click(await screen.findByTestId('open-settings'))
  await screen.findByTestId('settings-form')
  await screen.findByTestId('set-llm.baseUrl')
  return { fake, user, ...r }
}

const field = (path: string) => screen.getByTestId(`set-${path}`) as HTMLInputElement
const savedSettings = (fake: ReturnType<typeof createFakeBridge>) => vi.mocked(fake.bridge.settings.save).mock.calls.at(-1)![0]

async function retype(user: ReturnType<typeof userEvent.setup>, path: string, text: string) {
  await user.clear(field(path))
  if (text) await user.type(field(path), text)
}

describe('settings screen', () => {
  it('says in words which values in effect are out of range and what is used instead', async () => {
    await openSettings({ settingsWarnings: [{ field: 'engine.maxTurns', message: 'must be a positive integer, got -1: the default of 30 is used until it is corrected' }] })
    const box = screen.getByTestId('settings-warnings')
    expect(box).toHaveTextContent('engine.maxTurns must be a positive integer, got -1: the default of 30 is used')
  })

  it('sets the budgets of one message and the bounds of one MCP server on the Tools page', async () => {
    const { user, fake } = await openSettings()
    await user.click(screen.getByTestId('settings-tab-tools'))
    expect(field('engine.maxConversationsPerMessage')).toHaveValue('20')
    expect(field('engine.maxModelCallsPerMessage')).toHaveValue('200')
    expect(field('tools.mcp.maxToolsPerServer')).toHaveValue('128')
    expect(field('tools.mcp.maxToolTokensPerServer')).toHaveValue('32,000')
    await retype(user, 'engine.maxModelCallsPerMessage', '50')
    await retype(user, 'tools.mcp.maxToolTokensPerServer', '8k')
    expect(await screen.findByTestId('settings-saved')).toBeInTheDocument()
    const s = savedSettings(fake)
    expect(s.engine.maxModelCallsPerMessage).toBe(50)
    expect(s.engine.maxConversationsPerMessage).toBe(20)
    expect(s.tools.mcp.maxToolTokensPerServer).toBe(8000)
  })

  it('shows no warning when every value is in range', async () => {
    await openSettings()
    expect(screen.queryByTestId('settings-warnings')).toBeNull()
  })

  it('lists its pages beside the page shown; every page is one entry of the list', async () => {
    const { user } = await openSettings()
    const nav = screen.getByRole('tablist', { name: 'Settings pages' })
    expect(within(nav).getAllByRole('tab').map((t) => t.textContent)).toEqual(settingsTabs.map((t) => i18n.t(`settings.tab.${t.id}`)))
    expect(within(nav).getByRole('tab', { name: 'General' })).toHaveAttribute('aria-selected', 'true')
    await user.click(screen.getByTestId('settings-tab-tools'))
    expect(screen.getByTestId('settings-panel-tools')).toBeInTheDocument()
    expect(screen.getByTestId('settings-page-general')).not.toBeVisible()
    await user.click(screen.getByTestId('settings-tab-packages'))
    expect(await screen.findByTestId('packages-panel')).toBeInTheDocument()
    expect(screen.getByTestId('settings-form')).not.toBeVisible()
    // the footer stays where it is on every page, with no Save button
    expect(screen.getByTestId('settings-cancel')).toBeVisible()
    expect(screen.queryByTestId('settings-save')).toBeNull()
  })

  it('shows sizes, shares and counts in human units and saves them as numbers', async () => {
    const { user, fake } = await openSettings()
    await user.click(screen.getByTestId('settings-tab-tools'))
    expect(field('tools.fs.maxReadBytes')).toHaveValue('512 KB')
    expect(field('tools.fs.maxWriteBytes')).toHaveValue('2 MB')
    await user.click(screen.getByTestId('settings-tab-context'))
    expect(field('context.tokenBudget')).toHaveValue('128,000')
    expect(field('context.triggerThreshold')).toHaveValue('80 %')
    expect(field('context.targetAfterCompression')).toHaveValue('50 %')
    await user.click(screen.getByTestId('settings-tab-general'))
    expect(field('llm.timeoutSeconds')).toHaveValue('2 min')

    await user.click(screen.getByTestId('settings-tab-tools'))
    await retype(user, 'tools.fs.maxReadBytes', '1.5mb')
    await user.tab() // leaving the field shows the value in its usual form
    expect(field('tools.fs.maxReadBytes')).toHaveValue('1.5 MB')
    await user.click(screen.getByTestId('settings-tab-context'))
    await retype(user, 'context.tokenBudget', '200k')
    await retype(user, 'context.triggerThreshold', '90')
    await retype(user, 'context.maxMessages', '')
    expect(await screen.findByTestId('settings-saved')).toBeInTheDocument()
    const s = savedSettings(fake)
    expect(s.tools.fs.maxReadBytes).toBe(1572864)
    expect(s.context.tokenBudget).toBe(200000)
    expect(s.context.triggerThreshold).toBe(0.9)
    expect(s.context.maxMessages).toBe(0)
    expect(s.llm.timeoutSeconds).toBe(120)
  })

  it('chooses the approval mode of new conversations', async () => {
    const { user, fake } = await openSettings()
    await user.click(screen.getByTestId('settings-tab-tools'))
    expect(field('approvals.mode')).toHaveValue('ask')
    await user.selectOptions(field('approvals.mode'), 'auto-edit')
    expect(await screen.findByTestId('settings-saved')).toBeInTheDocument()
    expect(savedSettings(fake).approvals).toEqual({ mode: 'auto-edit' })
  })

  it('says what is wrong with a value, marks its page and saves nothing until it is fixed', async () => {
    const { user, fake } = await openSettings()
    await user.click(screen.getByTestId('settings-tab-tools'))
    await retype(user, 'tools.fs.maxWriteBytes', 'lots')
    expect(screen.getByTestId('error-tools.fs.maxWriteBytes')).toHaveTextContent('"lots" is not a size; write it like 512 KB or 2 MB.')
    expect(field('tools.fs.maxWriteBytes')).toHaveAttribute('aria-invalid', 'true')
    expect(screen.getByTestId('settings-tab-wrong-tools')).toBeInTheDocument()
    expect(screen.getByTestId('settings-wrong')).toHaveTextContent('1 field to correct before saving')
    expect(fake.bridge.settings.save).not.toHaveBeenCalled()

    // what was typed survives a visit to another page
    await user.click(screen.getByTestId('settings-tab-general'))
    await user.click(screen.getByTestId('settings-tab-tools'))
    expect(field('tools.fs.maxWriteBytes')).toHaveValue('lots')

    // two fields that disagree
    await user.click(screen.getByTestId('settings-tab-context'))
    await retype(user, 'context.targetAfterCompression', '85 %')
    expect(screen.getByTestId('error-context.targetAfterCompression')).toHaveTextContent('Must be below "Compact above" (80 %).')
    expect(screen.getByTestId('settings-wrong')).toHaveTextContent('2 fields to correct')
    await retype(user, 'context.triggerThreshold', '120 %')
    expect(screen.getByTestId('error-context.triggerThreshold')).toHaveTextContent('Must be between 5 % and 95 %.')
    await retype(user, 'context.triggerThreshold', '90 %')
    expect(screen.queryByTestId('error-context.targetAfterCompression')).toBeNull()

    await user.click(screen.getByTestId('settings-tab-tools'))
    await retype(user, 'tools.fs.maxWriteBytes', '4 MB')
    expect(screen.queryByTestId('settings-wrong')).toBeNull()
    expect(screen.queryByTestId('settings-tab-wrong-tools')).toBeNull()
    await screen.findByTestId('settings-saved')
    expect(savedSettings(fake)).toMatchObject({ tools: { fs: { maxWriteBytes: 4194304 } }, context: { triggerThreshold: 0.9, targetAfterCompression: 0.85 } })
    expect(fake.bridge.settings.save).toHaveBeenCalledTimes(1)
  })

  it('keeps unsaved edits while other pages are shown', async () => {
    const { user, fake } = await openSettings()
    await retype(user, 'llm.baseUrl', 'http://127.0.0.1:1234/v1')
    await user.click(screen.getByTestId('settings-tab-packages'))
    await screen.findByTestId('packages-panel')
    await user.click(screen.getByTestId('settings-tab-general'))
    expect(field('llm.baseUrl')).toHaveValue('http://127.0.0.1:1234/v1')
    await screen.findByTestId('settings-saved')
    expect(savedSettings(fake).llm.baseUrl).toBe('http://127.0.0.1:1234/v1')
  })

  it('Test connection lists the models the endpoint serves; one is picked from the list', async () => {
    const { user, fake } = await openSettings({ models: ['llama3.2:3b', 'mistral:7b', 'qwen2.5:7b'] })
    await retype(user, 'llm.model', '')
    await user.click(screen.getByTestId('settings-test'))
    expect(await screen.findByTestId('settings-test-result')).toHaveTextContent('serves 3 models: choose the model to use')
    const pick = screen.getByTestId('settings-model-pick') as HTMLSelectElement
    expect([...pick.options].map((o) => o.value)).toEqual(['', 'llama3.2:3b', 'mistral:7b', 'qwen2.5:7b'])
    await user.selectOptions(pick, 'mistral:7b')
    expect(field('llm.model')).toHaveValue('mistral:7b')
    await user.click(screen.getByTestId('settings-test'))
    await waitFor(() => expect(screen.getByTestId('settings-test-result')).toHaveAttribute('data-ok', 'true'))
    await screen.findByTestId('settings-saved')
    expect(savedSettings(fake).llm.model).toBe('mistral:7b')
  })

  it('offers the servers running on this computer', async () => {
    const { user } = await openSettings({ localServers: [{ name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1', models: ['qwen2.5-7b-instruct', 'phi-4'] }] })
    const offer = await screen.findByTestId('settings-local-offer')
    expect(offer).toHaveTextContent('LM Studio is running on this computer with 2 models.')
    await user.click(within(offer).getByTestId('settings-local-use'))
    expect(field('llm.baseUrl')).toHaveValue('http://127.0.0.1:1234/v1')
    expect(field('llm.model')).toHaveValue('qwen2.5-7b-instruct')
    // the server in use is not offered again
    expect(screen.queryByTestId('settings-local-offer')).toBeNull()
  })

  it.each([
    ['the system language, Chinese', ['zh-CN', 'en'], 'system', '设置', 'zh-CN'],
    ['Chinese, chosen', ['en-US'], 'zh-CN', '设置', 'zh-CN'],
    ['English, chosen on a Chinese system', ['zh-CN'], 'en', 'Settings', 'en'],
  ])('speaks %s, keeps the choice for the next window, and goes back to the system language', async (_, system, choice, title, lang) => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue(system)
    try {
      const { user, stores } = await openSettings()
      await user.click(screen.getByTestId(`set-language-${choice}`))
      expect(screen.getByRole('dialog', { name: title })).toBeInTheDocument()
      expect(document.documentElement.lang).toBe(lang)
      expect(stores.display.getState().language).toBe(choice)
      expect(createDisplayStore().getState().language).toBe(choice)
      if (lang === 'zh-CN') {
        expect(screen.getByTestId('settings-tab-general')).toHaveTextContent('常规')
        expect(screen.getByTestId('zoom-hint')).toHaveTextContent('缩放：100 %')
        expect(screen.getByTestId('settings-footer')).toHaveTextContent('更改会在你修改时自动保存')
      }
      await user.click(screen.getByTestId('set-language-system'))
      expect(document.documentElement.lang).toBe(system[0].startsWith('zh') ? 'zh-CN' : 'en')
      expect(screen.getByTestId('set-language-system').parentElement).toHaveTextContent(system[0].startsWith('zh') ? '跟随系统（简体中文）' : 'System (English)')
    } finally {
      localStorage.removeItem(displayKey)
      vi.restoreAllMocks()
    }
  })

  it('follows the system theme live when "System" is chosen', async () => {
    const listeners = new Set<() => void>()
    let dark = false
    vi.stubGlobal('matchMedia', () => ({
      get matches() {
        return dark
      },
      addEventListener: (_: string, l: () => void) => listeners.add(l),
      removeEventListener: (_: string, l: () => void) => listeners.delete(l),
    }))
    try {
      const { user, fake } = await openSettings({ theme: 'dark' })
      expect(document.documentElement.dataset.theme).toBe('dark')
      await user.click(screen.getByTestId('set-theme-system'))
      expect(document.documentElement.dataset.theme).toBe('light')
      expect(document.documentElement.dataset.themeChoice).toBe('system')
      act(() => {
        dark = true
        listeners.forEach((l) => l())
      })
      expect(document.documentElement.dataset.theme).toBe('dark')
        await screen.findByTestId('settings-saved')
      expect(savedSettings(fake).theme).toBe('system')
      act(() => {
        dark = false
        listeners.forEach((l) => l())
      })
      expect(document.documentElement.dataset.theme).toBe('light')
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('saves a text field once typing pauses, says "Saved" beside it, and a choice at once', async () => {
    const { user, fake } = await openSettings()
    const save = vi.mocked(fake.bridge.settings.save)
    await retype(user, 'llm.baseUrl', 'http://127.0.0.1:8080/v1')
    // not one save per key
    expect(save).not.toHaveBeenCalled()
    expect(await screen.findByTestId('saved-llm.baseUrl')).toHaveTextContent('Saved')
    expect(save).toHaveBeenCalledTimes(1)
    expect(savedSettings(fake).llm.baseUrl).toBe('http://127.0.0.1:8080/v1')
    expect(screen.getByTestId('settings-saved')).toHaveTextContent('All changes saved')

    await user.click(screen.getByTestId('settings-tab-tools'))
    await user.selectOptions(field('approvals.mode'), 'full-auto')
    await waitFor(() => expect(save).toHaveBeenCalledTimes(2))
    expect(savedSettings(fake).approvals).toEqual({ mode: 'full-auto' })
    expect(await screen.findByTestId('saved-approvals.mode')).toBeInTheDocument()
    expect(screen.queryByTestId('saved-llm.baseUrl')).toBeNull()
  })

  it('saves what is still waiting when the dialog closes', async () => {
    const { user, fake } = await openSettings()
    await retype(user, 'llm.model', 'qwen3:8b')
    await user.click(screen.getByTestId('settings-cancel'))
    await waitFor(() => expect(fake.bridge.settings.save).toHaveBeenCalledTimes(1))
    expect(savedSettings(fake).llm.model).toBe('qwen3:8b')
  })

  it('folds the budget, compaction and loop numbers under Advanced, open while one is wrong', async () => {
    const { user } = await openSettings()
    await user.click(screen.getByTestId('settings-tab-context'))
    const ctx = screen.getByTestId('settings-advanced-context')
    expect(ctx).not.toHaveAttribute('open')
    expect(field('context.tokenBudget')).not.toBeVisible()
    expect(field('context.compressionStrategy')).toBeVisible()
    await user.click(screen.getByTestId('settings-tab-tools'))
    const loop = screen.getByTestId('settings-advanced-loop')
    expect(within(loop).getByTestId('set-engine.maxTurns')).not.toBeVisible()
    await user.click(within(loop).getByText('Advanced'))
    expect(field('engine.maxTurns')).toBeVisible()
    await retype(user, 'engine.maxTurns', 'many')
    expect(screen.getByTestId('error-engine.maxTurns')).toBeInTheDocument()
    expect(loop).toHaveAttribute('open')
  })
})
