--- `:IdelinkClaude`: claude in a terminal split of this Neovim, connected to its sidecar (the
--- environment from `idelink env <port>`); run again, it hides the split, then shows it again.
--- `:IdelinkEnv` gives the same environment as lines to paste into an outside terminal.
local config = require('idelink.config')
local env = require('idelink.env')
local inert = require('idelink.inert')

local M = {}

--- claude's terminal buffer, while its job runs.
local term_buf = nil

--- The window showing claude's terminal in this tab, or nil.
local function window()
  if not term_buf then
    return nil
  end
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == term_buf then
      return win
    end
  end
  return nil
end

--- Opens the split (`config.claude.split`, sized by `config.claude.size`).
local function split()
  local opts = config.options.claude
  local vertical = opts.split == 'vsplit'
  local total = vertical and vim.o.columns or vim.o.lines
  local size = math.max(10, math.floor(total * opts.size))
  vim.cmd(string.format('botright %d%s', size, vertical and 'vsplit' or 'split'))
end

--- The buffer showing claude, or nil and why.
function M.buffer()
  return term_buf
end

--- Toggles claude's split; starts claude (with `args` after the configured command) when it
--- is not running. `exe` and `port` are the sidecar's.
function M.toggle(exe, port, args)
  local win = window()
  if win then
    if #vim.api.nvim_list_wins() > 1 then
      vim.api.nvim_win_close(win, false)
    end
    return true
  end
  if term_buf and vim.api.nvim_buf_is_valid(term_buf) then
    split()
    vim.api.nvim_win_set_buf(0, term_buf)
    vim.cmd.startinsert()
    return true
  end
  local vars, why = env.fetch(exe, port)
  if not vars then
    return nil, why
  end
  local cmd = vim.list_extend(vim.deepcopy(config.options.claude.cmd), args or {})
  split()
  local buf = vim.api.nvim_create_buf(false, false)
  vim.api.nvim_win_set_buf(0, buf)
  local ok, job = pcall(vim.fn.jobstart, cmd, {
    term = true,
    env = vars,
    on_exit = function()
      if term_buf == buf then
        term_buf = nil
      end
    end,
  })
  if not ok or job <= 0 then
    vim.api.nvim_buf_delete(buf, { force = true })
    return nil, 'cannot start ' .. inert.text(table.concat(cmd, ' ')) .. ': ' .. tostring(job)
  end
  term_buf = buf
  vim.cmd.startinsert()
  return true
end

--- The lines to paste into a terminal outside Neovim so `claude` started there connects.
function M.paste_lines(exe, port)
  local vars, raw = env.fetch(exe, port)
  if not vars then
    return nil, raw
  end
  return raw .. table.concat(config.options.claude.cmd, ' ') .. '\n'
end

return M
