-- `nvim -l tests/unit/inert_spec.lua` (run by tests/unit/run.lua): the inert-text rules.
local t = require('tests.unit.t')
local inert = require('idelink.inert')

t.case('plain text, tab and non-ASCII letters are kept', function()
  t.eq({ inert.text('main.rs\tü ✻ 日本') }, { 'main.rs\tü ✻ 日本', false })
end)

t.case('controls are named', function()
  t.eq({ inert.text('a\27[2Kb\rc\n\127\194\133') }, { 'a<ESC>[2Kb<CR>c<LF><DEL><U+0085>', true })
end)

t.case('bidi controls and invisible characters are shown as code points', function()
  t.eq(inert.text('x\226\128\174y\226\128\139z\239\187\191'), 'x<U+202E>y<U+200B>z<U+FEFF>')
  t.eq(inert.text('\243\160\128\129'), '<U+E0001>')
end)

t.case('bytes that are not UTF-8 are shown, never dropped', function()
  t.eq({ inert.text('a\255b\192\175') }, { 'a<0xFF>b<0xC0><0xAF>', true })
  -- A UTF-16 surrogate encoded as UTF-8 (CESU) is not valid UTF-8.
  t.eq(inert.text('\237\160\128'), '<0xED><0xA0><0x80>')
end)

t.case('statusline text cannot hold a % item', function()
  t.eq(inert.statusline('100%{execute("qa")}\27'), '100%%{execute("qa")}<ESC>')
end)
