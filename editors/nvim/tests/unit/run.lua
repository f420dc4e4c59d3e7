-- The plugin's Lua unit tests: `nvim -l editors/nvim/tests/unit/run.lua` runs every
-- `*_spec.lua` beside this file and exits 1 when a case failed.
local here = vim.fs.dirname(vim.fs.abspath(arg[0]))
local root = vim.fs.dirname(vim.fs.dirname(here))
vim.opt.rtp:prepend(root)
package.path = root .. '/?.lua;' .. root .. '/lua/?.lua;' .. root .. '/lua/?/init.lua;' .. package.path

local t = require('tests.unit.t')
local specs = vim.fn.globpath(here, '*_spec.lua', false, true)
table.sort(specs)
for _, spec in ipairs(specs) do
  dofile(spec)
end
io.stdout:write(string.format('%d passed, %d failed (%d files)\n', t.passed, t.failed, #specs))
os.exit(t.failed == 0 and 0 or 1)
