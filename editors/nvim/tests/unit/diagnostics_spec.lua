-- vim.diagnostic items as the protocol's diagnostics.
local t = require('tests.unit.t')
local diagnostics = require('idelink.diagnostics')

t.case('severity, range in UTF-16 and optional fields', function()
  local lines = { [0] = 'let é = 1;', [1] = 'x' }
  local item = { lnum = 0, col = 6, end_lnum = 0, end_col = 7, severity = 2,
    message = 'unused', source = 'rustc', code = 123 }
  t.eq(diagnostics.convert(item, function(n) return lines[n] end), {
    message = 'unused', severity = 'Warning', source = 'rustc', code = '123',
    range = { start = { line = 0, character = 5 }, ['end'] = { line = 0, character = 6 } },
  })
end)

t.case('a diagnostic without an end ends where it starts', function()
  local got = diagnostics.convert({ lnum = 1, col = 0, severity = 4, message = 'hint' },
    function() return 'x' end)
  t.eq(got.severity, 'Hint')
  t.eq(got.range['end'], { line = 1, character = 0 })
end)
