--- claude's `openDiff` as a Neovim diff: a new tab with the original (left, read-only) and
--- the proposal (right, editable) side by side under `:diffthis`. The user edits the proposal
--- freely; `:w` (or the accept mapping) answers `diffSaved` with the text the buffer holds,
--- `:q` (or the reject mapping, or closing the tab any way) answers `diffRejected`
--- (docs/sidecar.md, "Answering a tool/call"). claude then writes the file itself; the engine's
--- `fileReplaced` event says the exact bytes it writes (its BOM and line-end rules), and once
--- the file holds them, the file's own buffer is reloaded.
---
--- A dirty original (the request's `dirty`, or the buffer modified): claude proposed against
--- the file on disk, so the left side is the file on disk, the winbar says the buffer has unsaved edits that are not in the proposal, and after
--- an accept that buffer is not reloaded (the user's edits stay; `:e!` takes the new file).
---
--- Model text (the tab name, paths) is shown inert (`idelink.inert`).
local config = require('idelink.config')
local inert = require('idelink.inert')
local sidecar = require('idelink.sidecar')

local M = {}

--- How long the file's buffer waits for claude to write the accepted text before it stops
--- watching, in milliseconds: claude writes within a second of the answer; past this it gave
--- the edit up (another prompt, an error) and the buffer must not be reloaded later by surprise.
local RELOAD_WATCH_MS = 60000

--- Open diffs by tool call id: `{tab, proposal, original, path, eol}`.
local open = {}
--- Accepted diffs waiting for their `fileReplaced`: id → the file's path.
local accepted = {}

--- The file's text on disk, or nil when it does not exist or is not readable.
local function read_file(path)
  local file = io.open(path, 'rb')
  if not file then
    return nil
  end
  local text = file:read('*a')
  file:close()
  return text
end

--- `text` as buffer lines, and whether it ended with a newline.
function M.split(text)
  local eol = text:sub(-1) == '\n'
  if eol then
    text = text:sub(1, -2)
  end
  return vim.split(text, '\n', { plain = true }), eol
end

--- The buffer's text as a file would hold it: lines joined by LF, plus the final LF when
--- 'eol' (or 'fixeol') says it has one.
function M.text_of(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local text = table.concat(lines, '\n')
  if vim.bo[buf].eol or vim.bo[buf].fixeol then
    text = text .. '\n'
  end
  return text
end

--- The loaded buffer editing `path`, or nil.
local function file_buffer(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == ''
      and vim.fs.normalize(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':p')) == path then
      return buf
    end
  end
  return nil
end

--- A scratch buffer named `name` holding `text`, with `path`'s file type.
local function scratch(name, text, path, buftype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].buftype = buftype
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  local lines, eol = M.split(text)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].eol, vim.bo[buf].fixeol = eol, eol
  vim.api.nvim_buf_set_name(buf, name)
  local filetype = vim.filetype.match({ filename = path })
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  vim.bo[buf].modified = false
  return buf
end

--- Closes diff `id`'s tab and buffers; no answer.
local function close(id)
  local diff = open[id]
  if not diff then
    return
  end
  open[id] = nil
  pcall(vim.api.nvim_del_augroup_by_name, 'idelink_diff_' .. tostring(id))
  -- Answered (or no longer asked): the edits in the proposal are done with, and must not stop
  -- the tab from closing (E37).
  if vim.api.nvim_buf_is_valid(diff.proposal) then
    vim.bo[diff.proposal].modified = false
  end
  if vim.api.nvim_tabpage_is_valid(diff.tab) and #vim.api.nvim_list_tabpages() > 1 then
    vim.cmd.tabclose(vim.api.nvim_tabpage_get_number(diff.tab))
  end
  if vim.api.nvim_tabpage_is_valid(diff.previous_tab) then
    vim.api.nvim_set_current_tabpage(diff.previous_tab)
  end
  for _, buf in ipairs({ diff.proposal, diff.original }) do
    if vim.api.nvim_buf_is_valid(buf) then
      vim.api.nvim_buf_delete(buf, { force = true })
    end
  end
end

--- Reloads `path`'s buffer once the file holds `text` (claude writes it after the answer):
--- a watch on its folder, read again on each change there, dropped after RELOAD_WATCH_MS.
local function reload_when_written(path, text)
  local buf = file_buffer(path)
  if not buf then
    return
  end
  local watch, timer = vim.uv.new_fs_event(), vim.uv.new_timer()
  local function finish()
    if not watch:is_closing() then watch:close() end
    if not timer:is_closing() then timer:close() end
  end
  local function check()
    if read_file(path) ~= text then
      return
    end
    finish()
    if vim.api.nvim_buf_is_loaded(buf) and not vim.bo[buf].modified then
      vim.api.nvim_buf_call(buf, function() vim.cmd('silent edit') end)
    end
  end
  watch:start(vim.fs.dirname(path), {}, function(err, name)
    if not err and name == vim.fs.basename(path) then
      vim.schedule(check)
    end
  end)
  timer:start(RELOAD_WATCH_MS, 0, vim.schedule_wrap(finish))
  check()
end

--- Answers diff `id` and closes it: accepted with the proposal buffer's text, or rejected.
function M.resolve(id, accept)
  local diff = open[id]
  if not diff then
    return
  end
  if accept then
    -- originalText lets the engine tell an accept that changes nothing, which claude would
    -- read as a denial, from a real one.
    sidecar.answer(id, { outcome = 'diffSaved', finalText = M.text_of(diff.proposal),
      originalText = diff.original_text })
    if not diff.dirty then
      accepted[id] = diff.path
    end
  else
    sidecar.answer(id, { outcome = 'diffRejected' })
  end
  close(id)
end

--- The engine's `fileReplaced` for accepted diff `id`: reload its file's buffer once the file
--- holds `text` (a diff of a dirty buffer left no entry: its edits stay).
function M.replaced(id, text)
  local path = accepted[id]
  accepted[id] = nil
  if path then
    reload_when_written(path, text)
  end
end

--- The open diff whose proposal is buffer `buf`: its id, or nil.
function M.id_of(buf)
  for id, diff in pairs(open) do
    if diff.proposal == buf or diff.original == buf then
      return id
    end
  end
  return nil
end

--- The winbar of the proposal: the tab name claude gave (inert), the keys, and a warning
--- when the file's buffer has unsaved edits.
local function winbar(tab_name, dirty)
  local keys = config.options.keys
  local bar = inert.statusline(tab_name) .. '  (:w or ' .. inert.statusline(keys.accept)
    .. ' accepts, :q or ' .. inert.statusline(keys.reject) .. ' rejects)'
  if dirty then
    bar = bar .. '  %#WarningMsg#unsaved edits in your buffer are not in this proposal%*'
  end
  return bar
end

--- Opens the diff for `openDiff` request `request` (tool call `id`).
function M.open(id, request)
  local path = request.newFilePath or request.oldFilePath
  local original_text = read_file(request.oldFilePath) or ''
  local buf = file_buffer(request.oldFilePath)
  local dirty = request.dirty == true or (buf ~= nil and vim.bo[buf].modified)
  local label = inert.text(vim.fs.basename(path))
  local previous_tab = vim.api.nvim_get_current_tabpage()
  -- The user may be selecting or typing when claude proposes: back to Normal mode first, so
  -- the new tab does not inherit a Visual selection or Insert mode (Terminal mode ends when
  -- the window changes).
  if vim.fn.mode():find('^[vVsSiR\22\19]') then
    vim.api.nvim_feedkeys(vim.keycode('<Esc>'), 'nx', false)
  end
  vim.cmd.tabnew()
  local tab = vim.api.nvim_get_current_tabpage()
  local placeholder = vim.api.nvim_get_current_buf()
  local original = scratch(string.format('idelink://%s/original/%s', id, label), original_text,
    path, 'nofile')
  vim.api.nvim_win_set_buf(0, original)
  vim.bo[original].modifiable = false
  if vim.api.nvim_buf_is_valid(placeholder) and placeholder ~= original then
    vim.api.nvim_buf_delete(placeholder, { force = true })
  end
  vim.cmd.diffthis()
  vim.cmd('rightbelow vsplit')
  local proposal = scratch(string.format('idelink://%s/proposal/%s', id, label),
    request.newFileContents, path, 'acwrite')
  vim.api.nvim_win_set_buf(0, proposal)
  vim.cmd.diffthis()
  vim.wo.winbar = winbar(request.tabName or label, dirty)
  vim.t[tab].idelink_tab_name = inert.text(request.tabName or label)
  open[id] = { tab = tab, proposal = proposal, original = original, path = path, dirty = dirty,
    original_text = original_text,
    previous_tab = previous_tab }

  local group = vim.api.nvim_create_augroup('idelink_diff_' .. tostring(id), { clear = true })
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    group = group, buffer = proposal,
    -- An 'acwrite' buffer's write is this autocommand's to do (`:help BufWriteCmd`): the
    -- answer is the write, so the buffer is no longer modified.
    callback = function()
      vim.bo[proposal].modified = false
      vim.schedule(function() M.resolve(id, true) end)
    end,
  })
  vim.api.nvim_create_autocmd('QuitPre', {
    group = group, buffer = proposal,
    -- `:q` on an edited proposal would stop at E37: it is a rejection, so the edits go.
    callback = function()
      vim.bo[proposal].modified = false
      vim.schedule(function() M.resolve(id, false) end)
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufWipeout', 'BufHidden' }, {
    group = group, buffer = proposal,
    callback = function() vim.schedule(function() M.resolve(id, false) end) end,
  })
  local keys = config.options.keys
  vim.keymap.set('n', keys.accept, function() M.resolve(id, true) end,
    { buffer = proposal, desc = 'idelink: accept this proposal' })
  vim.keymap.set('n', keys.reject, function() M.resolve(id, false) end,
    { buffer = proposal, desc = 'idelink: reject this proposal' })
end

--- Closes diff `id` without answering: claude no longer waits for it (`toolCallCancelled`:
--- the user answered in the terminal, a newer proposal replaced it, claude went away).
function M.cancel(id)
  close(id)
end

--- The open diffs' ids.
function M.ids()
  return vim.tbl_keys(open)
end

return M
