-- idelink's commands. Loaded by Neovim at startup (or `:packadd idelink`); the plugin's
-- modules load on first use. `require('idelink').setup({...})` sets options and starts the
-- sidecar; without it, the first command starts it.
if vim.g.loaded_idelink then
  return
end
vim.g.loaded_idelink = true

local function idelink()
  return require('idelink')
end

local command = vim.api.nvim_create_user_command

command('IdelinkStart', function() idelink().start() end,
  { desc = 'idelink: start the sidecar for this folder' })
command('IdelinkStop', function() idelink().stop() end,
  { desc = 'idelink: stop the sidecar (claude disconnects, the lock goes)' })
command('IdelinkStatus', function() idelink().status() end,
  { desc = 'idelink: port, sessions, last error' })
command('IdelinkClaude', function(opts) idelink().claude(opts.fargs) end,
  { nargs = '*', desc = 'idelink: toggle claude in a terminal split' })
command('IdelinkEnv', function() idelink().env() end,
  { desc = 'idelink: the command to start claude in an outside terminal' })
command('IdelinkSend', function(opts)
  local buf = vim.api.nvim_get_current_buf()
  if opts.range > 0 then
    idelink().send(buf, opts.line1, opts.line2)
  else
    idelink().send(buf)
  end
end, { range = true, desc = 'idelink: @-mention the range (or the file) to claude' })
command('IdelinkAccept', function() idelink().decide(true) end,
  { desc = 'idelink: accept the diff in this tab' })
command('IdelinkReject', function() idelink().decide(false) end,
  { desc = 'idelink: reject the diff in this tab' })
