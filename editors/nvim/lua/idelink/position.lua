--- Neovim positions as the sidecar's editor events spell them: 0-based lines, characters
--- counted in UTF-16 code units (docs/protocol.md: the CLI reads lines; VS Code counts
--- columns in UTF-16, so idelink does too).
local M = {}

--- The UTF-16 column of byte column `col` (0-based) of `line`.
---@param line string
---@param col integer
function M.character(line, col)
  col = math.max(0, math.min(col, #line))
  return vim.str_utfindex(line, 'utf-16', col, false)
end

--- The selection of `mode` between `from` and `to` (`getpos()` lists: 1-based line and
--- byte column), in buffer `lines` (the lines from the first to the last row), as
--- `{text, selection}`. Charwise (`v`) includes the character under the end; linewise (`V`)
--- and blockwise (CTRL-V) take whole lines, as the CLI reports lines.
---@param mode string
---@param from integer[]
---@param to integer[]
---@param lines string[] the buffer lines from the first selected row to the last
function M.selection(mode, from, to, lines)
  if from[2] > to[2] or (from[2] == to[2] and from[3] > to[3]) then
    from, to = to, from
  end
  local first, last = lines[1] or '', lines[#lines] or ''
  local start_col, end_col
  if mode == 'v' then
    start_col = from[3] - 1
    -- The end is inclusive: past the last byte of the character under it.
    local end_start = math.min(to[3] - 1, math.max(#last - 1, 0))
    end_col = end_start + #(vim.fn.strcharpart(last:sub(end_start + 1), 0, 1))
  else
    start_col, end_col = 0, #last
  end
  local picked = vim.deepcopy(lines)
  if #picked == 1 then
    picked[1] = first:sub(start_col + 1, end_col)
  else
    picked[1] = first:sub(start_col + 1)
    picked[#picked] = last:sub(1, end_col)
  end
  return {
    text = table.concat(picked, '\n'),
    selection = {
      start = { line = from[2] - 1, character = M.character(first, start_col) },
      ['end'] = { line = to[2] - 1, character = M.character(last, end_col) },
    },
  }
end

--- The empty selection at the cursor (`line` 1-based, `col` 0-based byte), in `text`.
function M.caret(line, col, text)
  local at = { line = line - 1, character = M.character(text, col) }
  return { text = '', selection = { start = at, ['end'] = vim.deepcopy(at) } }
end

return M
