/// <reference types="vitest/config" />
import { writeFileSync } from 'node:fs'
import { defineConfig, type Plugin } from 'vite'
import react from '@vitejs/plugin-react'

// main.go embeds dist/ with `//go:embed all:frontend/dist`, which fails on an
// empty folder: put the tracked placeholder back after every build.
function keepGitkeep(): Plugin {
  return {
    name: 'keep-gitkeep',
    apply: 'build',
    closeBundle() {
      writeFileSync(new URL('./dist/.gitkeep', import.meta.url), '')
    },
  }
}

export default defineConfig({
  plugins: [react(), keepGitkeep()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    testTimeout: 20000, // 2-core CI machines: user-event flows can take seconds under load
  },
})
