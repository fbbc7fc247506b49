// A failure in the language in use: from its template when it has one, else
// the code's sentence with the backend's own words under Details.
import { cleanup, render, screen } from '@testing-library/react'
import { toBridgeError } from '../bridge/errors'
import { applyLanguage } from '../i18n'
import { ErrorBanner } from './ErrorBanner'

describe('ErrorBanner', () => {
  afterEach(() => {
    cleanup()
    applyLanguage('en')
  })

  it.each([
    ['en', 'E_PROJECT_NOT_FOUND: folder /p does not exist\x1e{"key":"project.notFound","params":{"path":"/p"}}', 'folder /p does not exist', null],
    ['zh-CN', 'E_PROJECT_NOT_FOUND: folder /p does not exist\x1e{"key":"project.notFound","params":{"path":"/p"}}', '文件夹 /p 不存在', null],
    ['en', 'E_PROJECT_IO: cannot write /p/x: disk full', 'cannot write /p/x: disk full', null],
    ['zh-CN', 'E_PROJECT_IO: cannot write /p/x: disk full', '无法读取或写入项目文件。', 'cannot write /p/x: disk full'],
    ['zh-CN', 'E_SOMETHING_NEW: a failure this window does not know', 'a failure this window does not know', null],
  ])('in %s says %s', (lang, wire, shown, detail) => {
    applyLanguage(lang as 'en' | 'zh-CN')
    const error = toBridgeError(new Error(wire))
    render(<ErrorBanner error={error} />)
    expect(screen.getByTestId('error-message')).toHaveTextContent(shown)
    expect(screen.getByTestId('error-code')).toHaveTextContent(error.code)
    if (detail) expect(screen.getByTestId('error-detail')).toHaveTextContent(detail)
    else expect(screen.queryByTestId('error-detail')).toBeNull()
  })
})
