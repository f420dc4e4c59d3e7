--- `:checkhealth idelink`: the executable, Neovim's version, the sidecar's state, and
--- `idelink doctor --json` for this folder (whether `claude --ide` started here would connect,
--- and how to fix it when not).
local config = require('idelink.config')
local inert = require('idelink.inert')
local sidecar = require('idelink.sidecar')

local M = {}

--- How long `idelink doctor` may take, in milliseconds: its live check opens a session to
--- each server it finds, each with its own short deadline.
local DOCTOR_WAIT_MS = 15000

--- Reports one doctor finding `{level, check, message, fix?}`.
local function report(finding)
  local text = inert.text(tostring(finding.check)) .. ': ' .. inert.text(tostring(finding.message))
  local advice = finding.fix and { inert.text(tostring(finding.fix)) } or nil
  if finding.level == 'ok' then
    vim.health.ok(text)
  elseif finding.level == 'warn' then
    vim.health.warn(text, advice)
  elseif finding.level == 'fail' then
    vim.health.error(text, advice)
  else
    vim.health.info(text .. (advice and (' (' .. advice[1] .. ')') or ''))
  end
end

function M.check()
  vim.health.start('idelink')
  if vim.fn.has('nvim-0.10') == 1 then
    vim.health.ok('Neovim ' .. tostring(vim.version()))
  else
    vim.health.error('Neovim 0.10 or newer is needed (vim.system, vim.fs.normalize)')
  end
  local exe = sidecar.executable(config.options.bin)
  if not exe then
    vim.health.error('no idelink executable: ' .. inert.text(config.options.bin),
      { 'put idelink on PATH, or set bin in setup()' })
    return
  end
  local version = vim.system({ exe, '--version' }, { text = true }):wait(5000)
  vim.health.ok(inert.text(exe .. ': ' .. vim.trim(version.stdout or '')))
  for _, line in ipairs(require('idelink').status_lines()) do
    vim.health.info(line)
  end

  vim.health.start('idelink doctor')
  local done = vim.system({ exe, 'doctor', '--json', vim.fn.getcwd() }, { text = true })
    :wait(DOCTOR_WAIT_MS)
  local ok, doctor = pcall(vim.json.decode, done.stdout or '')
  if not ok or type(doctor) ~= 'table' or type(doctor.findings) ~= 'table' then
    vim.health.error('idelink doctor --json printed no report (status ' .. tostring(done.code)
      .. '): ' .. inert.text(vim.trim(done.stderr or '')))
    return
  end
  for _, finding in ipairs(doctor.findings) do
    report(finding)
  end
  if doctor.connects then
    vim.health.ok('claude --ide started in this folder connects')
  else
    vim.health.warn('claude --ide started in this folder would not connect (see above)')
  end
end

return M
