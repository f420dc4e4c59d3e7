--- What the user sees, reported to idelink as editor events (docs/sidecar.md, "editor/event"):
--- the documents open, the active one, the selection or caret, dirty and saved states, and
--- "no file" when nothing is active. Every caret move is sent as it happens: idelink
--- debounces `selection_changed` itself, so the plugin keeps no timer.
local position = require('idelink.position')
local sidecar = require('idelink.sidecar')

local M = {}

--- Paths reported open, by buffer number.
local open = {}
--- The path reported active, or nil ("no file").
local active = nil

--- The absolute path of buffer `buf` when it is a file the user edits (a normal buffer with
--- a name), else nil: terminals, help, the diff views and scratch buffers are not documents.
function M.path(buf)
  if not vim.api.nvim_buf_is_valid(buf) or vim.bo[buf].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or name:find('^%a[%w+.-]*://') then
    return nil
  end
  return vim.fs.normalize(vim.fn.fnamemodify(name, ':p'))
end

local function opened(buf)
  local path = M.path(buf)
  if not path or open[buf] == path then
    return path
  end
  open[buf] = path
  local language = vim.bo[buf].filetype
  sidecar.event({ type = 'documentOpened', path = path,
    languageId = language ~= '' and language or nil })
  if vim.bo[buf].modified then
    sidecar.event({ type = 'documentDirtyChanged', path = path, isDirty = true })
  end
  return path
end

--- The selection (visual mode) or caret in the current window, for `path`.
local function current_selection(path)
  local mode = vim.fn.mode()
  if mode == 'v' or mode == 'V' or mode == '\22' then
    local from, to = vim.fn.getpos('v'), vim.fn.getpos('.')
    local first, last = math.min(from[2], to[2]), math.max(from[2], to[2])
    local lines = vim.api.nvim_buf_get_lines(0, first - 1, last, false)
    local selected = position.selection(mode, from, to, lines)
    selected.path = path
    return selected
  end
  local cursor = vim.api.nvim_win_get_cursor(0)
  local line = vim.api.nvim_buf_get_lines(0, cursor[1] - 1, cursor[1], false)[1] or ''
  local caret = position.caret(cursor[1], cursor[2], line)
  caret.path = path
  return caret
end

--- Reports the current buffer: activated (when it changed) and its selection or caret.
function M.report_current()
  local buf = vim.api.nvim_get_current_buf()
  local path = opened(buf)
  if not path then
    -- An empty unnamed buffer is what is left when the last file closed: no file. Other
    -- non-file buffers (claude's terminal, help, a diff) keep the last file as context.
    if active and vim.bo[buf].buftype == '' and vim.api.nvim_buf_get_name(buf) == '' then
      active = nil
      sidecar.event({ type = 'noDocumentActive' })
    end
    return
  end
  if active ~= path then
    active = path
    sidecar.event({ type = 'documentActivated', path = path })
  end
  local selected = current_selection(path)
  selected.type = 'selectionChanged'
  sidecar.event(selected)
end

local function closed(buf)
  local path = open[buf]
  if not path then
    return
  end
  open[buf] = nil
  if active == path then
    active = nil
  end
  sidecar.event({ type = 'documentClosed', path = path })
end

--- Sends the whole current state again (after the sidecar (re)started), then follows it.
function M.attach(group)
  open, active = {}, nil
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) then
      opened(buf)
    end
  end
  M.report_current()
  vim.api.nvim_create_autocmd({ 'BufEnter', 'CursorMoved', 'CursorMovedI', 'ModeChanged' }, {
    group = group,
    callback = M.report_current,
  })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufFilePost' }, {
    group = group,
    callback = function(args) opened(args.buf) end,
  })
  vim.api.nvim_create_autocmd('BufModifiedSet', {
    group = group,
    callback = function(args)
      local path = open[args.buf]
      if path then
        sidecar.event({ type = 'documentDirtyChanged', path = path,
          isDirty = vim.bo[args.buf].modified })
      end
    end,
  })
  vim.api.nvim_create_autocmd('BufWritePost', {
    group = group,
    callback = function(args)
      local path = opened(args.buf)
      if path then
        sidecar.event({ type = 'documentSaved', path = path })
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufDelete', 'BufWipeout', 'BufUnload' }, {
    group = group,
    callback = function(args) closed(args.buf) end,
  })
end

--- Sends claude an @-mention of lines `first`..`last` (1-based, inclusive) of buffer `buf`,
--- or of the whole file when `first` is nil. Returns nil and a reason when `buf` is no file.
function M.mention(buf, first, last)
  local path = opened(buf)
  if not path then
    return nil, 'this buffer is not a file'
  end
  local event = { type = 'mention', path = path }
  if first then
    event.lineStart, event.lineEnd = first - 1, last - 1
  end
  sidecar.event(event)
  return path
end

return M
