--- The `idelink serve --stdio=lines` child: starts it, writes JSON-RPC messages to its stdin,
--- and hands what it sends (docs/sidecar.md) to the handlers in `M.handlers`, on the main loop.
--- Stopping closes its stdin after a `shutdown`: idelink then closes claude's sessions,
--- removes its lock file and exits (docs/sidecar.md, "Other calls").
local lines = require('idelink.lines')

local M = {}

--- How long `stop()` waits for idelink to remove its lock and exit, in milliseconds: its own
--- shutdown gives sessions one second to close.
local STOP_WAIT_MS = 3000
--- How many of idelink's last stderr lines are kept for `:IdelinkStatus`.
local STDERR_LINES_KEPT = 20

--- The running child, or nil.
local proc = nil
--- What `:IdelinkStatus` shows: `ready` params, sessions by conn, last error, stderr tail.
M.state = { ready = nil, sessions = {}, last_error = nil, stderr = {} }
--- Handlers by kind: `tool_call(id, params)`, `event(params)`, `ready(params)`. Set by init.
M.handlers = {}

local function record_error(message)
  M.state.last_error = os.date('%H:%M:%S ') .. message
end

--- The `idelink` executable for `bin`: a path as given, a name through `PATH`; nil when
--- there is none.
function M.executable(bin)
  local found = vim.fn.exepath(bin)
  return found ~= '' and found or nil
end

--- Handles one decoded message from idelink.
function M.dispatch(message)
  local method, params = message.method, message.params
  if method == 'idelink/ready' then
    M.state.ready = params
    if M.handlers.ready then M.handlers.ready(params) end
  elseif method == 'tool/call' and message.id ~= nil then
    M.handlers.tool_call(message.id, params)
  elseif method == 'idelink/event' then
    if params.event == 'sessionReady' then
      M.state.sessions[params.conn] = params
    elseif params.event == 'closed' then
      M.state.sessions[params.conn] = nil
    end
    if M.handlers.event then M.handlers.event(params) end
  elseif method == 'idelink/log' then
    record_error(params.level .. ': ' .. params.message)
  elseif message.error then
    record_error('idelink answered an error: ' .. tostring(message.error.message))
  end
end

local function on_line(line)
  local ok, message = pcall(vim.json.decode, line, { luanil = { object = true, array = true } })
  if ok and type(message) == 'table' then
    M.dispatch(message)
  else
    record_error('idelink wrote a line that is not JSON')
  end
end

--- True while the child runs.
function M.running()
  return proc ~= nil
end

--- Starts `bin serve --stdio=lines <args> <root>`. Returns nil and a message when it cannot.
---@param opts {bin: string, args: string[], ide_name: string, root: string}
function M.start(opts)
  if proc then
    return true
  end
  local exe = M.executable(opts.bin)
  if not exe then
    local why = 'no idelink executable: ' .. opts.bin
      .. ' is not on PATH or not executable (set bin in setup())'
    record_error(why)
    return nil, why
  end
  local cmd = { exe, 'serve', '--stdio=lines', '--ide-name', opts.ide_name }
  vim.list_extend(cmd, opts.args)
  cmd[#cmd + 1] = opts.root
  local split_out, split_err = lines.splitter(), lines.splitter()
  M.state = { ready = nil, sessions = {}, last_error = nil, stderr = {} }
  local started, result = pcall(vim.system, cmd, {
    stdin = true,
    stdout = function(_, chunk)
      if chunk then
        vim.schedule(function()
          for _, line in ipairs(split_out(chunk)) do on_line(line) end
        end)
      end
    end,
    stderr = function(_, chunk)
      if chunk then
        vim.schedule(function()
          local kept = M.state.stderr
          for _, line in ipairs(split_err(chunk)) do
            kept[#kept + 1] = line
            if #kept > STDERR_LINES_KEPT then table.remove(kept, 1) end
          end
        end)
      end
    end,
  }, function(done)
    vim.schedule(function()
      if done.code ~= 0 then
        local tail = M.state.stderr[#M.state.stderr] or ''
        record_error(string.format('idelink exited with status %d: %s', done.code, tail))
      end
      proc, M.state.ready, M.state.sessions = nil, nil, {}
      if M.handlers.exit then M.handlers.exit(done.code) end
    end)
  end)
  if not started then
    record_error(tostring(result))
    return nil, tostring(result)
  end
  proc = result
  return true
end

--- Writes one JSON-RPC message (without the `jsonrpc` field, which this adds).
function M.send(message)
  if not proc then
    return false
  end
  message.jsonrpc = '2.0'
  local ok, err = pcall(proc.write, proc, vim.json.encode(message) .. '\n')
  if not ok then
    record_error('cannot write to idelink: ' .. tostring(err))
  end
  return ok
end

--- An `editor/event` notification.
function M.event(params)
  return M.send({ method = 'editor/event', params = params })
end

--- Answers the `tool/call` `id` with `result` (an outcome object).
function M.answer(id, result)
  return M.send({ id = id, result = result })
end

--- Asks idelink to shut down, closes its stdin, and waits up to STOP_WAIT_MS for it to exit
--- (so the lock file is gone when Neovim quits); past that `wait` kills it (status 124).
function M.stop()
  if not proc then
    return
  end
  local child = proc
  M.send({ id = 'shutdown', method = 'shutdown' })
  pcall(child.write, child, nil)
  child:wait(STOP_WAIT_MS)
  proc, M.state.ready, M.state.sessions = nil, nil, {}
end

return M
