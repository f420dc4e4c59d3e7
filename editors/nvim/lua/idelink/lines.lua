--- Splits a byte stream into lines (the sidecar's `--stdio=lines` framing: one JSON message a
--- line, blank lines ignored), keeping a partial last line until its newline arrives.
local M = {}

--- A splitter: call it with each chunk; it returns the complete lines the chunk finished.
---@return fun(chunk: string): string[]
function M.splitter()
  local pending = ''
  return function(chunk)
    local lines = {}
    pending = pending .. chunk
    while true do
      local newline = pending:find('\n', 1, true)
      if not newline then
        break
      end
      local line = pending:sub(1, newline - 1):gsub('\r$', '')
      pending = pending:sub(newline + 1)
      if line:find('%S') then
        lines[#lines + 1] = line
      end
    end
    return lines
  end
end

return M
