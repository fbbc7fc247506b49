import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { App } from '../../App'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'

const recentEntries = [
  { root: '/home/me/alpha', id: 'a', name: 'alpha', lastOpenedAt: new Date().toISOString() },
  { root: '/home/me/gone', id: 'g', name: 'gone', lastOpenedAt: new Date().toISOString() },
]

// The workspace screen is loaded lazily: its first import can take seconds on a loaded machine.
const lazyScreen = { timeout: 10000 }

function setup(opts?: Parameters<typeof createFakeBridge>[0]) {
  const fake = createFakeBridge(opts)
  const user = userEvent.setup()
  const view = renderWithStores(<App />, fake.bridge)
  return { fake, user, ...view }
}

describe('StartScreen', () => {
  it('shows the app name, version and the two actions', async () => {
    setup({ version: '1.4.2' })
    expect(await screen.findByRole('heading', { level: 1, name: 'CrewAgent' })).toBeInTheDocument()
    expect(await screen.findByTestId('app-version')).toHaveTextContent('v1.4.2')
    expect(screen.getByRole('button', { name: 'New project' })).toBeEnabled()
    expect(screen.getByRole('button', { name: 'Open project…' })).toBeEnabled()
    expect(await screen.findByTestId('recent-empty')).toBeInTheDocument()
  })

  it('lists recent projects and greys out missing folders with a Remove action', async () => {
    const { user, fake } = setup({ folders: ['/home/me/alpha'], recent: recentEntries })
    const items = await screen.findAllByTestId('recent-item')
    expect(items.map((li) => li.dataset.missing)).toEqual(['false', 'true'])
    expect(within(items[0]).queryByRole('button', { name: /remove/i })).toBeNull()
    expect(within(items[1]).getByTestId('recent-missing')).toHaveTextContent('Folder missing')

    await user.click(within(items[1]).getByRole('button', { name: 'Remove gone from recent projects' }))
    expect(fake.bridge.projects.forgetRecent).toHaveBeenCalledWith('/home/me/gone')
    await waitFor(() => expect(screen.getAllByTestId('recent-item')).toHaveLength(1))
  })

  it('opens a recent project into the workspace and closes it again', async () => {
    const { user } = setup({ folders: ['/home/me/alpha'], recent: recentEntries })
    await user.click(await screen.findByRole('button', { name: /alpha/ }))
    expect(await screen.findByTestId('workspace-screen', {}, lazyScreen)).toBeInTheDocument()
    expect(screen.getByTestId('workspace-project-name')).toHaveTextContent('alpha')
    expect(screen.getByTestId('workspace-project-root')).toHaveTextContent('/home/me/alpha')

    await user.click(screen.getByRole('button', { name: 'Close project' }))
    expect(await screen.findByTestId('start-screen')).toBeInTheDocument()
  })

  it('asks whether a moved project keeps its conversations, and says what it did', async () => {
    const { user, fake } = setup({ folders: ['/home/me/renamed'], moved: { '/home/me/renamed': '/home/me/book' } })
    await user.type(await screen.findByLabelText('Or open a folder by path'), '/home/me/renamed')
    await user.click(screen.getByTestId('open-path-submit'))
    const card = await screen.findByRole('alertdialog', { name: 'Moved project?' })
    expect(within(card).getByTestId('moved-question')).toHaveTextContent('this looks like project "book" moved from /home/me/book — use its conversations?')
    expect(screen.queryByTestId('error-banner')).toBeNull()
    expect(screen.queryByTestId('workspace-screen')).toBeNull()

    await user.click(within(card).getByRole('button', { name: 'Yes, use its conversations' }))
    expect(fake.bridge.projects.openMoved).toHaveBeenCalledWith('/home/me/renamed', true)
    expect(await screen.findByTestId('workspace-screen', {}, lazyScreen)).toBeInTheDocument()
    expect(screen.getByTestId('project-notice')).toHaveTextContent('its conversations came along')
    await user.click(screen.getByTestId('project-notice-dismiss'))
    expect(screen.queryByTestId('project-notice')).toBeNull()
  })

  it('makes a moved folder a new project when the answer is no, and opens nothing on cancel', async () => {
    const { user, fake } = setup({ folders: ['/home/me/renamed'], moved: { '/home/me/renamed': '/home/me/book' } })
    const input = await screen.findByLabelText('Or open a folder by path')
    await user.type(input, '/home/me/renamed')
    await user.click(screen.getByTestId('open-path-submit'))
    await user.click(await screen.findByRole('button', { name: 'Cancel' }))
    expect(screen.queryByTestId('moved-project')).toBeNull()
    expect(fake.bridge.projects.openMoved).not.toHaveBeenCalled()
    expect(screen.getByTestId('start-screen')).toBeInTheDocument()

    await user.click(screen.getByTestId('open-path-submit'))
    await user.click(await screen.findByRole('button', { name: 'No, a new project' }))
    expect(fake.bridge.projects.openMoved).toHaveBeenCalledWith('/home/me/renamed', false)
    expect(await screen.findByTestId('project-notice', {}, lazyScreen)).toHaveTextContent('is a new project')
  })

  it('opens a typed path', async () => {
    const { user, fake } = setup({ folders: ['/home/me/typed'] })
    const input = await screen.findByLabelText('Or open a folder by path')
    const submit = screen.getByTestId('open-path-submit')
    expect(submit).toBeDisabled()
    await user.type(input, '/home/me/typed')
    await user.click(submit)
    expect(fake.bridge.projects.open).toHaveBeenCalledWith('/home/me/typed')
    expect(await screen.findByTestId('workspace-project-name', {}, lazyScreen)).toHaveTextContent('typed')
  })

  it('says clearly why a folder could not be opened', async () => {
    const { user } = setup()
    await user.type(await screen.findByLabelText('Or open a folder by path'), '/home/me/missing{Enter}')
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveAttribute('data-code', 'E_PROJECT_NOT_FOUND')
    expect(alert).toHaveTextContent('project folder /home/me/missing does not exist')
    expect(screen.getByTestId('start-screen')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Dismiss error' }))
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('Open project… uses the native folder picker', async () => {
    const { user, fake } = setup({ folders: ['/home/me/picked'] })
    fake.setNextFolder('/home/me/picked')
    await user.click(await screen.findByRole('button', { name: 'Open project…' }))
    expect(fake.bridge.projects.chooseFolder).toHaveBeenCalled()
    expect(await screen.findByTestId('workspace-project-name', {}, lazyScreen)).toHaveTextContent('picked')
  })

  it('a cancelled picker changes nothing', async () => {
    const { user, fake } = setup()
    fake.setNextFolder(null)
    await user.click(await screen.findByRole('button', { name: 'Open project…' }))
    await waitFor(() => expect(screen.getByRole('button', { name: 'Open project…' })).toBeEnabled())
    expect(fake.bridge.projects.open).not.toHaveBeenCalled()
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('creates a project from a picked location and a name', async () => {
    const { user, fake } = setup({ folders: ['/home/me'] })
    await user.click(await screen.findByRole('button', { name: 'New project' }))
    const form = await screen.findByTestId('new-project-form')
    const create = within(form).getByRole('button', { name: 'Create project' })
    expect(create).toBeDisabled()
    expect(within(form).getByLabelText('Name')).toHaveFocus()

    fake.setNextFolder('/home/me')
    await user.click(within(form).getByRole('button', { name: 'Browse…' }))
    await waitFor(() => expect(within(form).getByLabelText('Location')).toHaveValue('/home/me'))
    await user.type(within(form).getByLabelText('Name'), 'fresh')
    expect(within(form).getByTestId('new-project-preview')).toHaveTextContent('Creates the folder /home/me/fresh')
    await user.click(create)

    expect(fake.bridge.projects.create).toHaveBeenCalledWith('/home/me', 'fresh')
    expect(await screen.findByTestId('workspace-project-name', {}, lazyScreen)).toHaveTextContent('fresh')
  })

  it('shows the backend refusal of a bad name and keeps the form', async () => {
    const { user } = setup({ folders: ['/home/me'] })
    await user.click(await screen.findByRole('button', { name: 'New project' }))
    const form = await screen.findByTestId('new-project-form')
    await user.clear(within(form).getByLabelText('Location'))
    await user.type(within(form).getByLabelText('Location'), '/home/me')
    await user.type(within(form).getByLabelText('Name'), 'a/b')
    await user.click(within(form).getByRole('button', { name: 'Create project' }))
    expect(await screen.findByRole('alert')).toHaveAttribute('data-code', 'E_PROJECT_NAME_INVALID')
    expect(screen.getByTestId('new-project-form')).toBeInTheDocument()
    await user.click(within(form).getByRole('button', { name: 'Cancel' }))
    expect(screen.queryByTestId('new-project-form')).toBeNull()
  })
})

describe('first run', () => {
  const ollama = { name: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1', models: ['llama3.2:3b', 'mistral:7b', 'qwen2.5-coder:7b'] }

  it('offers a local server in words, with its models, and uses the one chosen', async () => {
    const { user, fake } = setup({ llmConfigured: false, localServers: [ollama] })
    const offer = await screen.findByTestId('first-run-offer')
    expect(within(offer).getByTestId('first-run-offer-text')).toHaveTextContent('Ollama is running on this computer with 3 models')
    expect(offer).toHaveTextContent('— use it?')
    await user.selectOptions(within(offer).getByTestId('first-run-model'), 'mistral:7b')
    await user.click(within(offer).getByRole('button', { name: 'Use Ollama' }))
    expect(await screen.findByTestId('first-run-done')).toHaveTextContent('CrewAgent will use mistral:7b on Ollama')
    expect(fake.bridge.settings.save).toHaveBeenCalledWith(expect.objectContaining({ llm: expect.objectContaining({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'mistral:7b' }) }))
    expect(screen.queryByTestId('first-run')).toBeNull()
    await user.click(screen.getByTestId('first-run-done-dismiss'))
    expect(screen.queryByTestId('first-run-done')).toBeNull()
    expect(screen.queryByTestId('first-run')).toBeNull() // configured now
  })

  it('says how to get a model when no server runs, and looks again on request', async () => {
    const { user, fake } = setup({ llmConfigured: false })
    expect(await screen.findByTestId('first-run-none')).toHaveTextContent('No model server is running on this computer')
    vi.mocked(fake.bridge.setup.localServers).mockResolvedValueOnce([{ ...ollama, models: [] }])
    await user.click(screen.getByTestId('first-run-rescan'))
    const offer = await screen.findByTestId('first-run-offer')
    expect(offer).toHaveTextContent('Ollama is running on this computer but has no model yet: load or download a model there, then look again.')
    expect(within(offer).queryByRole('button', { name: /Use/ })).toBeNull()
    await user.click(screen.getByTestId('first-run-settings'))
    expect(await screen.findByTestId('settings-form')).toBeInTheDocument()
  })

  it('is not shown once an LLM is configured', async () => {
    const { fake } = setup({ localServers: [ollama] })
    await screen.findByTestId('recent-empty')
    await waitFor(() => expect(fake.bridge.settings.get).toHaveBeenCalled())
    expect(screen.queryByTestId('first-run')).toBeNull()
    expect(fake.bridge.setup.localServers).not.toHaveBeenCalled()
  })
})

describe('new project location', () => {
  it('proposes the default location, made on demand, and can go back to it', async () => {
    const { user, fake } = setup({ folders: ['/home/me'], defaultLocation: '/home/me/Documents/CrewAgent Projects' })
    await user.click(await screen.findByRole('button', { name: 'New project' }))
    const form = await screen.findByTestId('new-project-form')
    const location = within(form).getByLabelText('Location')
    await waitFor(() => expect(location).toHaveValue('/home/me/Documents/CrewAgent Projects'))
    await user.type(within(form).getByLabelText('Name'), 'novel')
    expect(within(form).getByTestId('new-project-preview')).toHaveTextContent(
      'Creates the folder /home/me/Documents/CrewAgent Projects/novel (and its location, if it is not there yet)',
    )
    expect(within(form).queryByTestId('new-project-default')).toBeNull()

    await user.clear(location)
    await user.type(location, '/home/me')
    expect(within(form).getByTestId('new-project-preview')).toHaveTextContent('Creates the folder /home/me/novel')
    await user.click(within(form).getByTestId('new-project-default'))
    expect(location).toHaveValue('/home/me/Documents/CrewAgent Projects')

    await user.click(within(form).getByRole('button', { name: 'Create project' }))
    expect(fake.bridge.projects.create).toHaveBeenCalledWith('/home/me/Documents/CrewAgent Projects', 'novel')
    expect(await screen.findByTestId('workspace-project-name', {}, lazyScreen)).toHaveTextContent('novel')
  })
})
