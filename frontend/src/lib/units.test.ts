import { formatBytes, formatCount, formatPercent, formatSeconds, parseBytes, parseCount, parsePercent, parseSeconds, type Parsed } from './units'

const value = (p: Parsed) => (p.ok ? p.value : `error: ${p.error}`)

describe('sizes', () => {
  it.each([
    [524288, '512 KB'],
    [2097152, '2 MB'],
    [1536, '1.5 KB'],
    [1048576 + 262144, '1.25 MB'],
    [1073741824, '1 GB'],
    [300, '300 bytes'],
    [1, '1 byte'],
    [1025, '1,025 bytes'],
  ])('%d bytes read as %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text)
    expect(value(parseBytes(text))).toBe(bytes)
  })

  it.each([
    ['512 KB', 524288],
    ['512kb', 524288],
    ['512 k', 524288],
    ['512 KiB', 524288],
    [' 0.5 MB ', 524288],
    ['.5mb', 524288],
    ['2 MiB', 2097152],
    ['1,024 bytes', 1024],
    ['1 024 B', 1024],
    ['4096', 4096],
  ])('"%s" is %d bytes', (text, bytes) => {
    expect(value(parseBytes(text))).toBe(bytes)
  })

  it.each([
    ['', 'Enter a size'],
    ['lots', '"lots" is not a size'],
    ['12 parsecs', '"12 parsecs" is not a size'],
    ['-5 KB', 'is not a size'],
    ['1.2.3 KB', 'is not a size'],
    ['0', 'at least 1 byte'],
    ['2 GB', 'at most 1 GB'],
  ])('"%s" is refused: %s', (text, error) => {
    const p = parseBytes(text)
    expect(p.ok).toBe(false)
    expect(p.ok ? '' : p.error).toContain(error)
  })

  it('round-trips every size it formats', () => {
    for (let bytes = 1; bytes < 1 << 30; bytes = Math.ceil(bytes * 1.37)) {
      expect(value(parseBytes(formatBytes(bytes)))).toBe(bytes)
    }
  })
})

describe('percentages', () => {
  it.each([
    [0.8, '80 %'],
    [0.5, '50 %'],
    [0.625, '62.5 %'],
    [0.05, '5 %'],
  ])('%d reads as %s and back', (fraction, text) => {
    expect(formatPercent(fraction)).toBe(text)
    expect(value(parsePercent(text))).toBe(fraction)
  })

  it.each([
    ['80%', 0.8],
    ['80', 0.8],
    [' 80 percent', 0.8],
    ['33.3 %', 0.333],
  ])('"%s" is %d', (text, fraction) => {
    expect(value(parsePercent(text))).toBe(fraction)
  })

  it.each([
    ['', 'Enter a percentage between 1 % and 99 %'],
    ['eighty', 'is not a percentage'],
    ['80 KB', 'is not a percentage'],
    ['0.5', 'between 1 % and 99 %'],
    ['100 %', 'between 1 % and 99 %'],
    ['150', 'between 1 % and 99 %'],
  ])('"%s" is refused: %s', (text, error) => {
    const p = parsePercent(text)
    expect(p.ok ? '' : p.error).toContain(error)
  })

  it('takes its bounds from the caller', () => {
    expect(value(parsePercent('96 %', { min: 0.05, max: 0.95 }))).toBe('error: Must be between 5 % and 95 %.')
    expect(value(parsePercent('95 %', { min: 0.05, max: 0.95 }))).toBe(0.95)
  })
})

describe('counts', () => {
  it.each([
    ['128,000', 128000],
    ['128000', 128000],
    ['128 000', 128000],
    ['128k', 128000],
    ['128 K', 128000],
    ['1.5M', 1500000],
    ['8,192', 8192],
  ])('"%s" is %d', (text, n) => {
    expect(value(parseCount(text))).toBe(n)
  })

  it('formats with separators and reads it back', () => {
    expect(formatCount(128000)).toBe('128,000')
    expect(value(parseCount(formatCount(1234567)))).toBe(1234567)
  })

  it.each([
    ['', 'Enter a number'],
    ['many', '"many" is not a number'],
    ['1.5', 'whole number'],
    ['0', 'at least 1'],
  ])('"%s" is refused: %s', (text, error) => {
    const p = parseCount(text)
    expect(p.ok ? '' : p.error).toContain(error)
  })

  it('reads an empty field or "off" as 0 where 0 turns a limit off', () => {
    for (const t of ['', 'off', 'OFF', '0']) expect(value(parseCount(t, { off: true }))).toBe(0)
    expect(value(parseCount('5', { off: true, min: 10 }))).toBe('error: Must be at least 10, or empty for no limit.')
  })
})

describe('durations', () => {
  it.each([
    [120, '2 min'],
    [90, '90 s'],
    [7200, '2 h'],
    [5400, '90 min'],
  ])('%d seconds read as %s and back', (s, text) => {
    expect(formatSeconds(s)).toBe(text)
    expect(value(parseSeconds(text))).toBe(s)
  })

  it.each([
    ['2m', 120],
    ['1.5 min', 90],
    ['45', 45],
    ['1 hour', 3600],
  ])('"%s" is %d seconds', (text, s) => {
    expect(value(parseSeconds(text))).toBe(s)
  })

  it.each([
    ['soon', 'is not a duration'],
    ['0 s', 'at least 1 s'],
    ['2 days', 'is not a duration'],
    ['25 h', 'at most 24 h'],
  ])('"%s" is refused: %s', (text, error) => {
    const p = parseSeconds(text)
    expect(p.ok ? '' : p.error).toContain(error)
  })
})
