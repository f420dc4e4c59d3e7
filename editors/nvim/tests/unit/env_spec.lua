-- `idelink env` output read back.
local t = require('tests.unit.t')
local env = require('idelink.env')

t.case('export lines give their values, quotes undone', function()
  local out = "export CLAUDE_CODE_SSE_PORT='4242'\nexport no_proxy='a'\\''b,127.0.0.1'\n"
    .. "export EMPTY=''\n"
  t.eq(env.parse(out), { CLAUDE_CODE_SSE_PORT = '4242', no_proxy = "a'b,127.0.0.1", EMPTY = '' })
end)

t.case('a value holding a newline is refused, never misread', function()
  -- idelink quotes every character literally, newlines included: the line splitter sees two
  -- lines, and the second is not an export line, so the output is refused, never misread.
  local vars, bad = env.parse("export A='x\ny'\n")
  t.eq(vars, nil)
  t.eq(bad, "export A='x")
end)

t.case('another shell syntax is refused', function()
  t.eq({ env.parse('set -gx A 1\n') }, { nil, 'set -gx A 1' })
end)
