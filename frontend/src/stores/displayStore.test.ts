import { createDisplayStore, displayKey, parseDisplay, stepZoom, zoomLevels } from './displayStore'

/** A Storage kept in a map, as localStorage keeps it. */
function memoryStorage(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init))
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), map: m }
}

describe('display choices', () => {
  it.each([
    [1, 1, 1.1],
    [1, -1, 0.9],
    [1.5, 1, 1.75],
    [2, 1, 2],
    [0.67, -1, 0.67],
    [1.2, 1, 1.25], // between steps: the next one up
    [1.2, -1, 1.1],
  ] as const)('steps the zoom from %s by %s to %s', (from, dir, want) => {
    expect(stepZoom(from, dir)).toBe(want)
  })

  it.each([
    ['nothing kept', null, { zoom: 1, textSize: 'default', sidebarHidden: false, language: 'system', notify: true }],
    ['broken JSON', '{zoom', { zoom: 1, textSize: 'default', sidebarHidden: false, language: 'system', notify: true }],
    ['a zoom that is no step', '{"zoom": 7, "textSize": "huge", "language": "fr"}', { zoom: 1, textSize: 'default', sidebarHidden: false, language: 'system', notify: true }],
    ['kept choices', '{"zoom": 1.5, "textSize": "large", "sidebarHidden": true, "language": "zh-CN", "notify": false}', { zoom: 1.5, textSize: 'large', sidebarHidden: true, language: 'zh-CN', notify: false }],
  ])('reads %s', (_, raw, want) => {
    expect(parseDisplay(raw)).toEqual(want)
  })

  it('keeps every change and reads it back in a new window', () => {
    const storage = memoryStorage()
    const a = createDisplayStore(storage)
    a.actions.zoomIn()
    a.actions.zoomIn()
    a.actions.zoomIn()
    expect(a.getState().zoom).toBe(1.5)
    a.actions.setTextSize('larger')
    a.actions.toggleSidebar()
    a.actions.setLanguage('zh-CN')
    a.actions.setNotify(false)
    expect(JSON.parse(storage.map.get(displayKey)!)).toEqual({ zoom: 1.5, textSize: 'larger', sidebarHidden: true, language: 'zh-CN', notify: false })
    const b = createDisplayStore(storage)
    expect(b.getState()).toEqual({ zoom: 1.5, textSize: 'larger', sidebarHidden: true, language: 'zh-CN', notify: false })
    b.actions.setLanguage('system')
    b.actions.zoomReset()
    b.actions.toggleSidebar()
    b.actions.setNotify(true)
    expect(createDisplayStore(storage).getState()).toEqual({ zoom: 1, textSize: 'larger', sidebarHidden: false, language: 'system', notify: true })
    for (let i = 0; i < 20; i++) b.actions.zoomOut()
    expect(b.getState().zoom).toBe(zoomLevels[0])
  })

  it('works where the storage refuses to keep anything', () => {
    const s = createDisplayStore({
      getItem: () => {
        throw new Error('denied')
      },
      setItem: () => {
        throw new Error('denied')
      },
    })
    s.actions.zoomIn()
    expect(s.getState().zoom).toBe(1.1)
  })
})
