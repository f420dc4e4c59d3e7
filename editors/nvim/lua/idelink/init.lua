--- idelink for Neovim: claude's IDE side through the `idelink serve --stdio` sidecar. The
--- plugin reports what the user sees (idelink.context, idelink.diagnostics) and answers what
--- claude asks (idelink.tools, idelink.diff); idelink runs the protocol, the WebSocket and the
--- lock file. `:help idelink` is the manual.
local config = require('idelink.config')
local context = require('idelink.context')
local diagnostics = require('idelink.diagnostics')
local diff = require('idelink.diff')
local inert = require('idelink.inert')
local sidecar = require('idelink.sidecar')
local terminal = require('idelink.terminal')
local tools = require('idelink.tools')

local M = {}

local GROUP = 'idelink'

--- Waits this long for `idelink/ready` when a command needs the port, in milliseconds.
local READY_WAIT_MS = 10000

local function notify(message, level)
  vim.notify('idelink: ' .. message, level or vim.log.levels.INFO)
end

sidecar.handlers.tool_call = tools.call
sidecar.handlers.event = function(params)
  if params.event == 'toolCallCancelled' then
    diff.cancel(params.id)
  elseif params.event == 'fileReplaced' then
    diff.replaced(params.id, params.text)
  end
end
sidecar.handlers.exit = function()
  pcall(vim.api.nvim_del_augroup_by_name, GROUP)
  for _, id in ipairs(diff.ids()) do
    diff.cancel(id)
  end
end

--- Sets the options (`:help idelink-config`) and, with `auto_start`, starts the sidecar.
function M.setup(opts)
  config.set(opts)
  if config.options.auto_start then
    M.start()
  end
end

--- Starts the sidecar for the configured root (default: the working directory) and begins
--- reporting. True when it runs; else false after saying why.
function M.start()
  if sidecar.running() then
    return true
  end
  local options = config.options
  local root = vim.fs.normalize(vim.fn.fnamemodify(options.root or vim.fn.getcwd(), ':p'))
  local ok, why = sidecar.start({ bin = options.bin, args = options.serve_args,
    ide_name = options.ide_name, root = root:gsub('(.)/$', '%1') })
  if not ok then
    notify(why, vim.log.levels.ERROR)
    return false
  end
  local group = vim.api.nvim_create_augroup(GROUP, { clear = true })
  context.attach(group)
  diagnostics.attach(group)
  vim.api.nvim_create_autocmd('VimLeavePre', { group = group, callback = M.stop })
  return true
end

--- Stops the sidecar: claude's sessions close and the lock file goes.
function M.stop()
  pcall(vim.api.nvim_del_augroup_by_name, GROUP)
  sidecar.stop()
end

--- The `idelink/ready` params (port, lockFile, ...) once serving, starting first if needed;
--- nil after saying why when it does not come up within READY_WAIT_MS.
function M.ready()
  if not M.start() then
    return nil
  end
  vim.wait(READY_WAIT_MS, function() return sidecar.state.ready ~= nil or not sidecar.running() end)
  if not sidecar.state.ready then
    notify('the sidecar is not serving: ' .. tostring(sidecar.state.last_error), vim.log.levels.ERROR)
  end
  return sidecar.state.ready
end

--- The status lines `:IdelinkStatus` shows.
function M.status_lines()
  local state, out = sidecar.state, {}
  if not sidecar.running() then
    out[1] = 'idelink: stopped'
  elseif not state.ready then
    out[1] = 'idelink: starting'
  else
    out[1] = string.format('idelink: serving %s on 127.0.0.1:%d',
      inert.text(table.concat(state.ready.workspaceFolders or {}, ', ')), state.ready.port)
    out[2] = '  lock file: ' .. inert.text(state.ready.lockFile or '?')
  end
  local sessions = {}
  for conn, session in pairs(state.sessions) do
    local client = session.client or {}
    sessions[#sessions + 1] = string.format('  session %s: %s %s, pid %s', conn,
      inert.text(tostring(client.name)), inert.text(tostring(client.version)),
      tostring(session.clientPid or '?'))
  end
  out[#out + 1] = string.format('  sessions: %d', #sessions)
  vim.list_extend(out, sessions)
  out[#out + 1] = string.format('  open diffs: %d', #diff.ids())
  out[#out + 1] = '  last error: ' .. (state.last_error and inert.text(state.last_error) or 'none')
  return out
end

--- `:IdelinkStatus`.
function M.status()
  notify((table.concat(M.status_lines(), '\n'):gsub('^idelink: ', '')))
end

--- `:IdelinkClaude [args]`: toggles claude's terminal split.
function M.claude(args)
  local ready = M.ready()
  if not ready then
    return
  end
  local ok, why = terminal.toggle(sidecar.executable(config.options.bin), ready.port, args)
  if not ok then
    notify(why, vim.log.levels.ERROR)
  end
end

--- `:IdelinkEnv`: the lines to paste into an outside terminal, shown and put in the unnamed
--- register (and `+` when there is a clipboard).
function M.env()
  local ready = M.ready()
  if not ready then
    return
  end
  local lines, why = terminal.paste_lines(sidecar.executable(config.options.bin), ready.port)
  if not lines then
    notify(why, vim.log.levels.ERROR)
    return
  end
  vim.fn.setreg('"', lines)
  local clipboard = pcall(vim.fn.setreg, '+', lines)
  -- One short line: the lines themselves are in the register (`:registers` shows them).
  notify('copied the command for a terminal in this folder to register "'
    .. (clipboard and ' and +' or '') .. ': paste it there')
end

--- `:[range]IdelinkSend`: an @-mention of the range (or of the whole file without one) in
--- claude's input.
function M.send(buf, first, last)
  if not M.start() then
    return
  end
  local path, why = context.mention(buf, first, last)
  if not path then
    notify(why, vim.log.levels.WARN)
  end
end

--- `:IdelinkAccept` / `:IdelinkReject` in a diff tab.
function M.decide(accept)
  local id = diff.id_of(vim.api.nvim_get_current_buf())
  if not id then
    notify('this buffer is not an idelink diff', vim.log.levels.WARN)
    return
  end
  diff.resolve(id, accept)
end

return M
