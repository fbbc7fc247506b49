// The interface in Simplified Chinese: the language chosen in Settings →
// General applies at once (the page's lang, the settings dialog, the start
// screen), is kept in the window's storage, and the workspace, the composer,
// a conversation with a tool card and the settings pages speak it, and so
// does a failed reply (the backend's words from their templates).
// Screenshots at 900x650 and 1440x900, light and dark.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'

export const timeoutMs = 180000

export async function setup({ tmp, repo }) {
  const rules = [
    { match: '列出', response: { tool_calls: [{ name: 'fs.list', arguments: '{"path":"@project"}' }] } },
    { match: '密钥', response: { status: 401, body: '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}' } },
    { match: '*', response: { text: '## 周末计划\n\n- 周六：**里昂**老城区散步\n- 周日：参观美术馆\n\n共 2 天，预算约 1,200 元。', chunks: 4 } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  return {
    llm,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini' },
    cleanup: () => llm.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`

export default async function i18n({ app, step, tmp }) {
  const workdir = join(tmp, 'work')
  mkdirSync(workdir, { recursive: true })
  const matrix = (name, prepare) => app.screenshots(name, prepare)
  const waitIdle = () => app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false'`, { timeoutMs: 20000, what: 'the reply to end' })

  await step('Settings → General → Language: 简体中文 applies at once and is kept', async () => {
    await app.waitForTestId('start-screen')
    assert.equal(await app.evaluate('document.documentElement.lang'), 'en')
    await app.click('open-settings')
    await app.waitForTestId('language-choice')
    await app.click('set-language-zh-CN')
    await app.waitFor(`document.documentElement.lang === 'zh-CN'`, { what: 'the page in Chinese' })
    assert.equal(await app.evaluate(`document.querySelector('.modal-title').textContent`), '设置')
    assert.equal(await app.text('settings-tab-general'), '常规')
    assert.match(await app.text('zoom-hint'), /^缩放：100 %/)
    assert.match(await app.evaluate(`localStorage.getItem('crewagent.display')`), /"language":"zh-CN"/)
    await matrix('i18n-settings-general-zh', () => app.evaluate(`${sel('language-choice')}.scrollIntoView({ block: 'center' })`))
    await app.click('settings-tab-context')
    await matrix('i18n-settings-context-zh')
    await app.click('settings-cancel')
    assert.equal(await app.text('new-project-button'), '新建项目')
  })

  await step('a project and a conversation in Chinese, with a tool card and dates and numbers in its format', async () => {
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', '周末')
    await app.typeInto('new-project-parent-input', workdir)
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen')
    writeFileSync(join(workdir, '周末', '笔记.md'), '# 笔记\n')
    await app.click('empty-new-conversation')
    await app.waitForTestId('chat-empty')
    assert.equal(await app.text('composer-send'), '发送')
    await app.typeInto('composer-input', '请列出项目里的文件')
    await app.press('composer-input', 'Enter')
    await app.waitForTestId('tool-card', { timeoutMs: 20000 })
    await waitIdle()
    await app.typeInto('composer-input', '帮我安排一个周末')
    await app.press('composer-input', 'Enter')
    await app.waitFor(`document.querySelectorAll('[data-testid="msg-assistant"]').length >= 2`, { timeoutMs: 20000, what: 'the answer' })
    await waitIdle()
    assert.match(await app.text('tool-status'), /完成/)
    assert.match(await app.evaluate(`document.querySelector('.chat-sub').textContent`), /条消息/)
    // the actions under the latest answer: names and tooltips in Chinese
    const fork = `[...document.querySelectorAll('[data-testid="msg-assistant"]')].pop().querySelector('[data-testid="msg-fork"]')`
    assert.equal(await app.evaluate(`${fork}.getAttribute('aria-label')`), '分叉')
    assert.equal(await app.evaluate(`${fork}.title`), '从这里分叉出新对话')
    await matrix('i18n-chat-zh')
  })

  await step("a failed reply says what went wrong in Chinese, the server's words under Details", async () => {
    await app.typeInto('composer-input', '用错误的密钥试一下')
    await app.press('composer-input', 'Enter')
    await app.waitForTestId('msg-error', { timeoutMs: 20000 })
    await waitIdle()
    assert.equal(await app.text('problem-title'), '服务器拒绝了 API 密钥')
    assert.equal(await app.text('problem-advice'), '请在设置中检查 API 密钥。')
    assert.match(await app.evaluate(`${sel('problem-details')}.textContent`), /Incorrect API key/)
    await matrix('i18n-error-zh', () => app.evaluate(`${sel('problem-details')}.open = true`))
  })
}
