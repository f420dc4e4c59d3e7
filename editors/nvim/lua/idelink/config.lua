--- The plugin's options: defaults, and `setup()`'s table merged over them.
local M = {}

--- The defaults. Every field may be overridden by `require('idelink').setup({...})`.
M.defaults = {
  --- The `idelink` executable: a name looked up on `PATH`, or a path.
  bin = 'idelink',
  --- More arguments for `idelink serve --stdio=lines` (`--single-session`, `-v`, ...).
  serve_args = {},
  --- The name claude shows ("Connected to Neovim extension").
  ide_name = 'Neovim',
  --- Start the sidecar when `setup()` runs; else the first command that needs it starts it.
  auto_start = true,
  --- The folder served to claude; nil: the current working directory at start.
  root = nil,
  --- `:IdelinkClaude`'s command and its split.
  claude = {
    cmd = { 'claude' },
    --- `vsplit` (right of the editor) or `split` (below).
    split = 'vsplit',
    --- The split's share of the editor's width (vsplit) or height (split).
    size = 0.4,
  },
  --- Buffer-local mappings in a diff's proposal (besides `:w` and `:q`).
  keys = { accept = '<leader>da', reject = '<leader>dr' },
}

--- The options in effect.
M.options = vim.deepcopy(M.defaults)

--- Merges `opts` over the defaults; unknown keys are refused by name, so a typo shows.
---@param opts table|nil
function M.set(opts)
  opts = opts or {}
  for key in pairs(opts) do
    if M.defaults[key] == nil and key ~= 'root' then
      error('idelink: unknown option ' .. vim.inspect(key), 0)
    end
  end
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
end

return M
