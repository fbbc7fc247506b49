import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createPackagesStore } from '../../stores/packagesStore'
import { createFakeBridge, demoPackage } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { App } from '../../App'

const project = { id: 'p1', name: 'alpha', root: '/home/me/alpha', dataDir: '/d', activePackageId: demoPackage.id }

describe('packagesStore', () => {
  it('imports: an invalid package gives the report, a valid one joins the list', async () => {
    const fake = createFakeBridge({ current: project })
    const store = createPackagesStore(fake.bridge)
    await store.actions.load()
    expect(store.getState().view?.packages.map((p) => p.name)).toEqual(['crewagent-demo'])

    const bad = await store.actions.importPackage('/tmp/broken.bmad')
    expect(bad?.ok).toBe(false)
    expect(store.getState().lastImport?.problems.map((p) => p.file)).toEqual(['bmad.json', 'agents.json'])
    expect(store.getState().view?.packages).toHaveLength(1)

    const good = await store.actions.importPackage(' /tmp/notes-pack.bmad ')
    expect(fake.bridge.packages.importPackage).toHaveBeenLastCalledWith('/tmp/notes-pack.bmad')
    expect(good?.ok).toBe(true)
    expect(store.getState().view?.packages.map((p) => p.name)).toEqual(['crewagent-demo', 'notes-pack'])

    expect(await store.actions.importPackage('/tmp/missing.bmad')).toBeNull()
    expect(store.getState().error?.code).toBe('PKG_OPEN')
  })

  it('asks before replacing an installed id and version: nothing changes until it is confirmed', async () => {
    const fake = createFakeBridge({ current: project })
    const store = createPackagesStore(fake.bridge)
    await store.actions.load()
    expect((await store.actions.importPackage('/tmp/notes-pack.bmad'))?.ok).toBe(true)
    const again = await store.actions.importPackage('/tmp/notes-pack.bmad')
    expect(again?.ok).toBe(false)
    expect(again?.exists?.id).toBe('notes-pack@1.0.0')
    expect(fake.bridge.packages.importReplacing).not.toHaveBeenCalled()
    const replaced = await store.actions.importPackage('/tmp/notes-pack.bmad', true)
    expect(fake.bridge.packages.importReplacing).toHaveBeenLastCalledWith('/tmp/notes-pack.bmad')
    expect(replaced?.package?.description).toBe('replaced')
    expect(store.getState().view?.packages.map((p) => p.id)).toEqual([demoPackage.id, 'notes-pack@1.0.0'])
  })

  it('chooses a file in the native dialog (cancel does nothing) and sets the active package', async () => {
    const fake = createFakeBridge({ current: project })
    const changed: string[] = []
    const store = createPackagesStore(fake.bridge, (p) => changed.push(p.activePackageId))
    fake.setNextFile(null)
    expect(await store.actions.chooseAndImport()).toBeNull()
    expect(fake.bridge.packages.importPackage).not.toHaveBeenCalled()
    fake.setNextFile('/home/me/team.zip')
    expect((await store.actions.chooseAndImport())?.package?.name).toBe('team')
    expect(await store.actions.setActive('team@1.0.0')).toBe(true)
    expect(changed).toEqual(['team@1.0.0'])
    expect(store.getState().active?.name).toBe('team')
    expect(await store.actions.setActive('nope@1')).toBe(false)
    expect(store.getState().error?.code).toBe('PKG_NOT_FOUND')
  })
})

describe('Settings → Packages', () => {
  it('lists packages, reports every problem of a broken import, and switches the active package', async () => {
    const fake = createFakeBridge({ folders: ['/home/me/alpha'], current: project, conversations: [] })
    renderWithStores(<App />, fake.bridge)
    await userEvent.click(await screen.findByTestId('workspace-package'))
    const panel = await screen.findByTestId('packages-panel')
    const items = await within(panel).findAllByTestId('pkg-item')
    expect(items).toHaveLength(1)
    expect(items[0]).toHaveTextContent('crewagent-demo')
    expect(items[0]).toHaveTextContent('1.0.0')
    expect(within(items[0]).getByTestId('pkg-workflows')).toHaveTextContent('Write a project brief')
    expect(within(items[0]).getByTestId('pkg-agents')).toHaveTextContent('Mara (Product Analyst)')
    expect(within(items[0]).getByTestId('pkg-agents')).toHaveTextContent('Theo (Brief Writer)')
    expect(items[0].dataset.active).toBe('true')

    await userEvent.type(within(panel).getByTestId('pkg-import-path'), '/tmp/broken.bmad')
    await userEvent.click(within(panel).getByTestId('pkg-import-submit'))
    const report = await within(panel).findByTestId('pkg-import-report')
    expect(report).toHaveTextContent('2 problems')
    const rows = within(report).getAllByTestId('pkg-problem')
    expect(rows.map((r) => r.dataset.file)).toEqual(['bmad.json', 'agents.json'])
    expect(rows[0]).toHaveTextContent('/version')
    expect(rows[0]).toHaveTextContent('must match the semver pattern')

    const path = within(panel).getByTestId('pkg-import-path')
    await userEvent.clear(path)
    await userEvent.type(path, '/tmp/notes-pack.bmad')
    await userEvent.click(within(panel).getByTestId('pkg-import-submit'))
    expect(await within(panel).findByTestId('pkg-import-ok')).toHaveTextContent('notes-pack')
    await userEvent.click(within(panel).getByTestId('pkg-import-use'))
    await vi.waitFor(() => expect(screen.getByTestId('workspace-package')).toHaveTextContent('notes-pack 1.0.0'))
    const after = within(panel).getAllByTestId('pkg-item')
    expect(after.map((i) => [i.dataset.name, i.dataset.active])).toEqual([
      ['crewagent-demo', 'false'],
      ['notes-pack', 'true'],
    ])
    expect(fake.bridge.packages.setActive).toHaveBeenCalledWith('notes-pack@1.0.0')
    // agents are reloaded for the new package
    await vi.waitFor(() => expect(vi.mocked(fake.bridge.chat.agents).mock.calls.length).toBeGreaterThan(1))
  })

  it('asks before an import replaces the installed package of the same id and version', async () => {
    const fake = createFakeBridge({ folders: ['/home/me/alpha'], current: project, conversations: [] })
    renderWithStores(<App />, fake.bridge)
    await userEvent.click(await screen.findByTestId('workspace-package'))
    const panel = await screen.findByTestId('packages-panel')
    const path = within(panel).getByTestId('pkg-import-path')
    await userEvent.type(path, '/tmp/notes-pack.bmad')
    await userEvent.click(within(panel).getByTestId('pkg-import-submit'))
    await within(panel).findByTestId('pkg-import-ok')

    // the same again: a question, and Cancel changes nothing
    await userEvent.click(within(panel).getByTestId('pkg-import-submit'))
    let dialog = await screen.findByTestId('pkg-replace-dialog')
    expect(dialog).toHaveTextContent('notes-pack 1.0.0 is installed already')
    expect(dialog).toHaveTextContent('notes-pack@1.0.0')
    await userEvent.click(within(dialog).getByTestId('pkg-replace-cancel'))
    expect(screen.queryByTestId('pkg-replace-dialog')).toBeNull()
    expect(fake.bridge.packages.importReplacing).not.toHaveBeenCalled()

    await userEvent.click(within(panel).getByTestId('pkg-import-submit'))
    dialog = await screen.findByTestId('pkg-replace-dialog')
    await userEvent.click(within(dialog).getByTestId('pkg-replace-confirm'))
    expect(await within(panel).findByTestId('pkg-import-ok')).toHaveTextContent('Installed notes-pack 1.0.0')
    expect(screen.queryByTestId('pkg-replace-dialog')).toBeNull()
    expect(fake.bridge.packages.importReplacing).toHaveBeenCalledWith('/tmp/notes-pack.bmad')
    expect(within(panel).getAllByTestId('pkg-item')).toHaveLength(2)
  })

  it('removes a package after a confirmation, and installs the bundled demo again', async () => {
    const fake = createFakeBridge({ folders: ['/home/me/alpha'], current: project, conversations: [] })
    renderWithStores(<App />, fake.bridge)
    await userEvent.click(await screen.findByTestId('workspace-package'))
    const panel = await screen.findByTestId('packages-panel')
    const [item] = await within(panel).findAllByTestId('pkg-item')
    expect(within(panel).queryByTestId('pkg-demo-missing')).toBeNull()

    // cancel leaves everything as it was
    await userEvent.click(within(item).getByTestId('pkg-remove'))
    const dialog = await screen.findByTestId('pkg-remove-dialog')
    expect(dialog).toHaveTextContent('crewagent-demo 1.0.0 will be uninstalled')
    expect(dialog).toHaveTextContent('The bundled demo can be installed again')
    expect(within(dialog).getByTestId('pkg-remove-active')).toHaveTextContent('active package of alpha')
    await userEvent.click(within(dialog).getByTestId('pkg-remove-cancel'))
    expect(screen.queryByTestId('pkg-remove-dialog')).toBeNull()
    expect(fake.bridge.packages.remove).not.toHaveBeenCalled()

    await userEvent.click(within(item).getByTestId('pkg-remove'))
    await userEvent.click(within(await screen.findByTestId('pkg-remove-dialog')).getByTestId('pkg-remove-confirm'))
    await vi.waitFor(() => expect(screen.queryByTestId('pkg-remove-dialog')).toBeNull())
    expect(fake.bridge.packages.remove).toHaveBeenCalledWith('crewagent-demo@1.0.0')
    expect(within(panel).queryAllByTestId('pkg-item')).toHaveLength(0)
    expect(within(panel).getByTestId('pkg-empty')).toBeInTheDocument()
    // the project has no active package any more
    await vi.waitFor(() => expect(screen.getByTestId('workspace-package')).not.toHaveTextContent('crewagent-demo'))

    await userEvent.click(within(panel).getByTestId('pkg-install-demo'))
    await vi.waitFor(() => expect(within(panel).getAllByTestId('pkg-item')).toHaveLength(1))
    expect(within(panel).queryByTestId('pkg-demo-missing')).toBeNull()
    expect(within(panel).getByTestId('pkg-item').dataset.active).toBe('false')
  })

  it('a failed removal keeps the dialog open with the error', async () => {
    const fake = createFakeBridge({ folders: ['/home/me/alpha'], current: project, conversations: [] })
    const { BridgeError } = await import('../../bridge')
    vi.mocked(fake.bridge.packages.remove).mockRejectedValueOnce(new BridgeError('E_BUSY', 'a reply is being generated in this project'))
    renderWithStores(<App />, fake.bridge)
    await userEvent.click(await screen.findByTestId('workspace-package'))
    const panel = await screen.findByTestId('packages-panel')
    const [item] = await within(panel).findAllByTestId('pkg-item')
    await userEvent.click(within(item).getByTestId('pkg-remove'))
    await userEvent.click(within(await screen.findByTestId('pkg-remove-dialog')).getByTestId('pkg-remove-confirm'))
    expect(await within(panel).findByText(/a reply is being generated/)).toBeInTheDocument()
    expect(screen.getByTestId('pkg-remove-dialog')).toBeInTheDocument()
    expect(within(panel).getAllByTestId('pkg-item')).toHaveLength(1)
  })

  it('shows why the bundled package is missing', async () => {
    const fake = createFakeBridge({ folders: ['/home/me/alpha'], current: project, conversations: [] })
    vi.mocked(fake.bridge.packages.list).mockResolvedValue({ packages: [], activePackageId: '', demoInstalled: false, demoName: 'crewagent-demo', demoError: 'The bundled demo package could not be installed: disk full' })
    renderWithStores(<App />, fake.bridge)
    expect(await screen.findByTestId('demo-error')).toHaveTextContent('disk full')
  })
})
