import { cleanup, render, screen } from '@testing-library/react'
import { applyLanguage } from '../../i18n'
import { MovedProject } from './MovedProject'

const question = 'this looks like project "book" moved from /home/me/book — use its conversations?'

describe('MovedProject', () => {
  afterEach(() => {
    cleanup()
    applyLanguage('en')
  })

  it.each([
    ['en', question, question, 'Yes: its conversations, runs and choices open in /home/me/renamed.', 'Yes, use its conversations'],
    ['zh-CN', question, '这看起来是从 /home/me/book 移动过来的项目“book”— 要使用它的对话吗？', '选“是”：它的对话、运行和选择会在 /home/me/renamed 中打开。', '是，使用它的对话'],
    ['zh-CN', 'the folder moved', 'the folder moved', '/home/me/renamed', '是，使用它的对话'],
  ])('asks in %s: %s', (lang, asked, shown, hint, keep) => {
    applyLanguage(lang as 'en' | 'zh-CN')
    render(<MovedProject root="/home/me/renamed" question={asked} busy={false} onAnswer={() => {}} onCancel={() => {}} />)
    expect(screen.getByTestId('moved-question')).toHaveTextContent(shown)
    expect(screen.getByTestId('moved-project')).toHaveTextContent(hint)
    expect(screen.getByText('/home/me/renamed')).toHaveClass('mono')
    expect(screen.getByTestId('moved-keep')).toHaveTextContent(keep)
  })
})
