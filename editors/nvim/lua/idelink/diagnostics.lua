--- `vim.diagnostic` pushed to idelink as `diagnosticsChanged` (docs/sidecar.md) whenever a
--- buffer's diagnostics change (the `DiagnosticChanged` autocommand), so claude's
--- `getDiagnostics` is answered from what Neovim shows.
local context = require('idelink.context')
local position = require('idelink.position')
local sidecar = require('idelink.sidecar')

local M = {}

--- `vim.diagnostic.severity` values as the protocol names them.
local SEVERITY = { 'Error', 'Warning', 'Info', 'Hint' }

--- One `vim.diagnostic` item as the protocol's diagnostic; `line_of(n)` gives line `n`
--- (0-based) of the buffer, to count its columns in UTF-16.
function M.convert(item, line_of)
  local end_lnum = item.end_lnum or item.lnum
  local end_col = item.end_col or item.col
  local code = item.code
  return {
    message = item.message,
    severity = SEVERITY[item.severity] or 'Error',
    source = item.source,
    code = code ~= nil and tostring(code) or nil,
    range = {
      start = { line = item.lnum, character = position.character(line_of(item.lnum), item.col) },
      ['end'] = { line = end_lnum, character = position.character(line_of(end_lnum), end_col) },
    },
  }
end

--- Sends buffer `buf`'s diagnostics (all namespaces).
function M.push(buf)
  local path = context.path(buf)
  if not path then
    return
  end
  local function line_of(n)
    return vim.api.nvim_buf_get_lines(buf, n, n + 1, false)[1] or ''
  end
  local items = {}
  for _, item in ipairs(vim.diagnostic.get(buf)) do
    items[#items + 1] = M.convert(item, line_of)
  end
  sidecar.event({ type = 'diagnosticsChanged', path = path, diagnostics = items })
end

--- Pushes every buffer's diagnostics now, then on each `DiagnosticChanged`.
function M.attach(group)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and #vim.diagnostic.get(buf) > 0 then
      M.push(buf)
    end
  end
  vim.api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(args) M.push(args.buf) end,
  })
end

return M
