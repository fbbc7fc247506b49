import '@testing-library/jest-dom/vitest'
import { configure } from '@testing-library/react'
import { applyLanguage } from '../i18n'

// Tests read the English words unless they switch the language themselves.
beforeEach(() => applyLanguage('en'))

// A screen loaded on demand (the workspace, Settings) can take more than the
// default second to appear on a loaded two-core machine.
configure({ asyncUtilTimeout: 4000 })
