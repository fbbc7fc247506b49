import '@testing-library/jest-dom/vitest'
import { applyLanguage } from '../i18n'

// Tests read the English words unless they switch the language themselves.
beforeEach(() => applyLanguage('en'))
