--- The tool calls idelink hands the editor (docs/sidecar.md, `tool/call`), each answered with
--- an outcome: `openDiff` (idelink.diff), `openFile`, `saveDocument`. Read tools are answered
--- by idelink from the events this plugin sends, and `executeCode` is never enabled, so any
--- other tool is answered `failed` by name.
local diff = require('idelink.diff')
local inert = require('idelink.inert')
local sidecar = require('idelink.sidecar')

local M = {}

--- `text` as a very-nomagic search pattern (`:help /\V`): only `\` and `/` are special.
local function literal(text)
  return '\\V' .. text:gsub('\\', '\\\\'):gsub('/', '\\/'):gsub('\n', '\\n')
end

--- `openFile`: edits the file (in the current window, or only loads it when
--- `makeFrontmost` is false) and, with `startText`, selects from it to `endText`.
local function open_file(request)
  local path = request.path
  if vim.fn.filereadable(path) ~= 1 then
    return { outcome = 'failed', message = 'not a readable file: ' .. path }
  end
  local buf = vim.fn.bufadd(path)
  vim.fn.bufload(buf)
  if request.makeFrontmost ~= false then
    vim.api.nvim_win_set_buf(0, buf)
    if request.startText and request.startText ~= '' then
      local start = vim.fn.searchpos(literal(request.startText), 'cw')
      if start[1] > 0 and request.endText and request.endText ~= '' then
        vim.cmd('normal! v')
        local stop = vim.fn.searchpos(literal(request.endText), 'ce')
        if stop[1] == 0 then
          vim.cmd('normal! \27')
        elseif request.selectToEndOfLine then
          vim.cmd('normal! $')
        end
      end
    end
  end
  local language = vim.bo[buf].filetype
  return { outcome = 'fileOpened', languageId = language ~= '' and language or nil,
    lineCount = vim.api.nvim_buf_line_count(buf) }
end

--- `saveDocument`: writes the file's buffer, when it is loaded.
local function save_document(request)
  local buf = vim.fn.bufnr(request.path)
  if buf < 0 or not vim.api.nvim_buf_is_loaded(buf) then
    return { outcome = 'failed', message = 'the document is not open: ' .. request.path }
  end
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function() vim.cmd('silent write') end)
  if not ok then
    return { outcome = 'failed', message = tostring(err) }
  end
  return { outcome = 'documentSaved' }
end

--- Handles `tool/call` `id` with `params` `{conn, request}`.
function M.call(id, params)
  local request = params.request or {}
  if request.tool == 'openDiff' then
    local ok, err = pcall(diff.open, id, request)
    if not ok then
      sidecar.answer(id, { outcome = 'failed', message = 'cannot open the diff: ' .. tostring(err) })
    end
    return
  end
  local handler = ({ openFile = open_file, saveDocument = save_document })[request.tool]
  local ok, result
  if handler then
    ok, result = pcall(handler, request)
    if not ok then
      result = { outcome = 'failed', message = tostring(result) }
    end
  else
    result = { outcome = 'failed',
      message = 'Neovim does not handle ' .. inert.text(tostring(request.tool)) }
  end
  sidecar.answer(id, result)
end

return M
