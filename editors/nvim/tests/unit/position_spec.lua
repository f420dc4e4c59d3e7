-- The selection and caret positions sent as `selectionChanged`.
local t = require('tests.unit.t')
local position = require('idelink.position')

t.case('a linewise selection is whole lines, end at the last line\'s end', function()
  local got = position.selection('V', { 0, 1, 5, 0 }, { 0, 1, 1, 0 }, { 'hello world' })
  t.eq(got, { text = 'hello world', selection = {
    start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 11 } } })
end)

t.case('a charwise selection includes the character under its end, either direction', function()
  local lines = { 'abc déf', 'ghi' }
  local forward = position.selection('v', { 0, 1, 5, 0 }, { 0, 2, 2, 0 }, lines)
  local backward = position.selection('v', { 0, 2, 2, 0 }, { 0, 1, 5, 0 }, lines)
  t.eq(forward, backward)
  t.eq(forward.text, 'déf\ngh')
  t.eq(forward.selection.start, { line = 0, character = 4 })
  t.eq(forward.selection['end'], { line = 1, character = 2 })
end)

t.case('a multibyte character under the end is taken whole', function()
  local got = position.selection('v', { 0, 1, 1, 0 }, { 0, 1, 2, 0 }, { 'aé!' })
  t.eq(got.text, 'aé')
  t.eq(got.selection['end'].character, 2)
end)

t.case('columns count UTF-16 code units', function()
  -- U+1F600 is four bytes in UTF-8 and two code units in UTF-16.
  t.eq(position.character('😀x', 4), 2)
  t.eq(position.caret(3, 5, '😀x').selection.start, { line = 2, character = 3 })
end)
