// node --test e2e/lib/internalNames.test.mjs
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { internalHits } from './internalNames.mjs'

test('finds internal names, codes and JSON', () => {
  const cases = [
    ['Read file · Read src/app.go (212 lines)', []],
    ['Listed 3 files', []],
    ['Failed: E_NOT_FOUND no such file', ['E_NOT_FOUND']],
    ['fs.read src/app.go', ['fs.read']],
    ['conv.create', ['conv.create']],
    ['used skill.activate', ['skill.activate']],
    ['{"ok":true}', ['{"']],
    ['see the refs. and the docs.', []],
    ['{ "spaced": 1 } and E_ alone', []],
  ]
  for (const [text, want] of cases) {
    assert.deepEqual(internalHits(text).map((h) => h.match), want, text)
  }
})
