--- `idelink env <port>`'s output (POSIX sh: `export NAME='value'` lines) read back into a
--- table, for claude's terminal; and the same lines as a command to paste elsewhere.
local M = {}

--- The variables of `export NAME='value'` lines. A value is single-quoted with each `'`
--- written `'\''` (POSIX.1-2017 XCU §2.2.2, what idelink prints); a line of another shape is
--- refused by returning nil and the line.
---@param output string
---@return table<string, string>|nil vars, string|nil bad_line
function M.parse(output)
  local vars = {}
  for line in output:gmatch('[^\n]+') do
    local name, quoted = line:match("^export ([%a_][%w_]*)=(.*)$")
    if not name then
      return nil, line
    end
    local value, rest = {}, quoted
    while rest ~= '' do
      local piece, after = rest:match("^'([^']*)'(.*)$")
      if piece then
        value[#value + 1], rest = piece, after
      elseif rest:sub(1, 2) == "\\'" then
        value[#value + 1], rest = "'", rest:sub(3)
      else
        return nil, line
      end
    end
    vars[name] = table.concat(value)
  end
  return vars
end

--- Runs `exe env <port>`; returns its variables and its raw lines, or nil and why.
function M.fetch(exe, port)
  local done = vim.system({ exe, 'env', tostring(port) }, { text = true }):wait(10000)
  if done.code ~= 0 then
    return nil, 'idelink env failed: ' .. vim.trim(done.stderr or '')
  end
  local vars, bad = M.parse(done.stdout)
  if not vars then
    return nil, 'idelink env printed a line this plugin cannot read: ' .. bad
  end
  return vars, done.stdout
end

return M
