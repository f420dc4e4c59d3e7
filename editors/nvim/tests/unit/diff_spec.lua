-- The diff tab: what it shows (inert), and what each way out answers.
local t = require('tests.unit.t')
local diff = require('idelink.diff')
local sidecar = require('idelink.sidecar')

local answers = {}
sidecar.answer = function(id, result) answers[#answers + 1] = { id = id, result = result } end

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, 'p')
local path = dir .. '/a.txt'
vim.fn.writefile({ 'one', 'two' }, path)

local function open(id, tab_name)
  answers = {}
  diff.open(id, { oldFilePath = path, newFilePath = path, newFileContents = 'one\nTWO\n',
    tabName = tab_name })
end

local function proposal_lines()
  return vim.api.nvim_buf_get_lines(0, 0, -1, false)
end

t.case('the diff tab: two windows under diffthis, the proposal current', function()
  open(1, 'tab')
  t.eq(#vim.api.nvim_list_tabpages(), 2)
  local wins = vim.api.nvim_tabpage_list_wins(0)
  t.eq(#wins, 2)
  t.eq({ vim.wo[wins[1]].diff, vim.wo[wins[2]].diff }, { true, true })
  t.eq(proposal_lines(), { 'one', 'TWO' })
  t.eq(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[1]), 0, -1, false),
    { 'one', 'two' })
  diff.cancel(1)
  t.eq(#vim.api.nvim_list_tabpages(), 1)
  t.eq(answers, {})
end)

t.case('model text in the winbar, tab and buffer names is inert', function()
  open(2, 'evil\27]52;c;eA==\7 %{execute("qa!")} \226\128\174txt')
  local bar, tab_name = vim.wo.winbar, vim.t.idelink_tab_name
  diff.cancel(2)
  t.eq(bar:find('\27', 1, true), nil)
  t.eq(bar:find('\226\128\174', 1, true), nil)
  t.eq(bar:sub(1, 57), 'evil<ESC>]52;c;eA==<BEL> %%{execute("qa!")} <U+202E>txt  ')
  t.eq(tab_name, 'evil<ESC>]52;c;eA==<BEL> %{execute("qa!")} <U+202E>txt')
end)

t.case(':w accepts with the text the user left in the proposal', function()
  open(3, 'tab')
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { 'added by the user' })
  vim.cmd('write')
  vim.wait(1000, function() return #answers > 0 end)
  t.eq(answers, { { id = 3, result = { outcome = 'diffSaved',
    finalText = 'one\nTWO\nadded by the user\n', originalText = 'one\ntwo\n' } } })
  t.eq(#vim.api.nvim_list_tabpages(), 1)
end)

t.case(':q rejects, even after edits', function()
  open(4, 'tab')
  vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'edited' })
  vim.cmd('quit')
  vim.wait(1000, function() return #answers > 0 end)
  t.eq(answers, { { id = 4, result = { outcome = 'diffRejected' } } })
  vim.wait(100, function() return #vim.api.nvim_list_tabpages() == 1 end)
  t.eq(#vim.api.nvim_list_tabpages(), 1)
end)

t.case('closing the tab any other way rejects', function()
  open(5, 'tab')
  vim.cmd('tabclose')
  vim.wait(1000, function() return #answers > 0 end)
  t.eq(answers, { { id = 5, result = { outcome = 'diffRejected' } } })
end)

t.case('a dirty original: the winbar says so and the accept does not reload it', function()
  vim.cmd.edit(vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, 1, false, { 'unsaved' })
  open(6, 'tab')
  t.eq(vim.wo.winbar:find('unsaved edits in your buffer are not in this proposal', 1, true) ~= nil,
    true)
  vim.cmd('write')
  vim.wait(1000, function() return #answers > 0 end)
  -- claude writes the file after the answer.
  vim.fn.writefile({ 'one', 'TWO' }, path)
  diff.replaced(6, 'one\nTWO\n')
  vim.wait(200)
  t.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false), { 'unsaved', 'two' })
  t.eq(vim.bo[buf].modified, true)
  vim.cmd('bwipeout!')
end)

t.case('a clean original reloads once the file holds what fileReplaced said', function()
  vim.fn.writefile({ 'one', 'two' }, path)
  vim.cmd.edit(vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  open(7, 'tab')
  vim.cmd('write')
  vim.wait(1000, function() return #answers > 0 end)
  -- The engine's text, as claude writes it (CRLF here, not the proposal's LF).
  diff.replaced(7, 'one\r\nTWO\r\n')
  vim.wait(200)
  t.eq(vim.api.nvim_buf_get_lines(buf, 0, -1, false)[2], 'two')
  vim.fn.writefile({ 'one\r', 'TWO\r', '' }, path, 'b')
  t.eq(vim.wait(5000, function()
    return vim.api.nvim_buf_get_lines(buf, 0, -1, false)[2] == 'TWO'
  end), true)
  t.eq(vim.bo[buf].modified, false)
  vim.cmd('bwipeout!')
end)

t.case(':IdelinkAccept and :IdelinkReject answer the diff of the current tab', function()
  vim.cmd('runtime plugin/idelink.lua')
  vim.fn.writefile({ 'one', 'two' }, path)
  open(8, 'tab')
  vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'mine' })
  vim.cmd('IdelinkAccept')
  t.eq(answers, { { id = 8, result = { outcome = 'diffSaved', finalText = 'mine\n',
    originalText = 'one\ntwo\n' } } })
  open(9, 'tab')
  vim.cmd('IdelinkReject')
  t.eq(answers, { { id = 9, result = { outcome = 'diffRejected' } } })
  t.eq(#vim.api.nvim_list_tabpages(), 1)
end)
