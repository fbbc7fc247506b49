import { atQuery, filterItems, resourceItems, slashItems, slashQuery, withoutAt } from './composerCommands'

const words = { compact: 'compacts', skills: 'picker', skill: (d: string) => `skill: ${d}`, promptArgs: (a: string) => `args: ${a}` }
const items = slashItems({
  skills: [{ name: 'release-notes', description: 'writes notes' }],
  prompts: [
    { server: 'everything', name: 'args-prompt', description: 'weather', arguments: [{ name: 'city', required: true }, { name: 'state' }] },
    { server: 'docs', name: 'summarize' },
  ],
  words,
})

describe('the composer menus', () => {
  it.each([
    ['/', ''],
    ['/comp', 'comp'],
    ['/compact keep the API', 'compact keep the API'],
    ['hello /compact', null],
    ['/compact\nmore', null],
    ['', null],
  ])('reads %j as the command query %j', (text, want) => {
    expect(slashQuery(text)).toBe(want)
  })

  it.each([
    ['@', 1, { start: 0, query: '' }],
    ['see @read', 9, { start: 4, query: 'read' }],
    ['see @read me', 9, { start: 4, query: 'read' }],
    ['see @read me', 12, null],
    ['mail a@b', 8, null],
    ['', 0, null],
  ])('reads %j at %i as the resource query %j', (text, caret, want) => {
    expect(atQuery(text, caret)).toEqual(want)
  })

  it.each([
    ['@rea', 0, 4, '', 0],
    ['see @rea now', 4, 8, 'see now', 4],
    ['see @readme', 4, 6, 'see ', 4],
  ])('takes the @ word out of %j', (text, start, caret, want, wantCaret) => {
    expect(withoutAt(text, start, caret)).toEqual({ text: want, caret: wantCaret })
  })

  it('lists every command with a line each: /compact, /skill, the skills, the prompts with their server and arguments', () => {
    expect(items.map((i) => [i.label, i.detail, 'badge' in i ? i.badge : ''])).toEqual([
      ['/compact', 'compacts', ''],
      ['/skill', 'picker', ''],
      ['/skill release-notes', 'skill: writes notes', ''],
      ['/args-prompt', 'weather · args: city [state]', 'everything'],
      ['/summarize', '', 'docs'],
    ])
  })

  it('offers the skill picker only where there are skills', () => {
    expect(slashItems({ skills: [], prompts: [], words }).map((i) => i.label)).toEqual(['/compact'])
  })

  it.each([
    ['', ['/compact', '/skill', '/skill release-notes', '/args-prompt', '/summarize']],
    ['s', ['/skill', '/skill release-notes', '/summarize', '/compact', '/args-prompt']],
    ['ARG', ['/args-prompt']],
    ['docs', ['/summarize']],
    ['skill rel', ['/skill release-notes']],
    ['compact keep it', []],
    ['zzz', []],
  ])('filters the commands by %j', (q, want) => {
    expect(filterItems(items, q).map((i) => i.label)).toEqual(want)
  })

  it('lists resources by title or name, with their URI and server, filtered as typed', () => {
    const list = resourceItems([
      { server: 'everything', uri: 'demo://resource/static/document/architecture.md', name: 'architecture.md', description: 'the design' },
      { server: 'files', uri: 'file:///tmp/notes.txt', name: 'notes', title: 'Meeting notes' },
    ])
    expect(list.map((i) => [i.label, i.detail])).toEqual([
      ['@architecture.md', 'demo://resource/static/document/architecture.md · the design'],
      ['@Meeting notes', 'file:///tmp/notes.txt'],
    ])
    expect(filterItems(list, 'meet').map((i) => i.label)).toEqual(['@Meeting notes'])
    expect(filterItems(list, 'files').map((i) => i.label)).toEqual(['@Meeting notes'])
  })
})
