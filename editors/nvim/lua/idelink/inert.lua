--- Text from claude or the model, made inert and visible before Neovim shows it.
---
--- A tab name, a path or a client name is untrusted text. Shown as it is in a winbar, a tab
--- label or a message, a control character, a bidi control (CVE-2021-42574, "Trojan Source")
--- or an invisible character can make the screen read one text while the file gets another.
--- The rules are idelink's own (apps/idelink/src/terminal/inert.rs): every character a
--- terminal would act on or not draw becomes a visible escape (`<ESC>`, `<CR>`, `<U+202E>`);
--- tab is kept; nothing is dropped. A byte that is not valid UTF-8 shows as `<0xNN>`.
local M = {}

--- The ASCII names of the C0 controls (ECMA-48 §8.2).
local C0_NAMES = {
  [0] = 'NUL', 'SOH', 'STX', 'ETX', 'EOT', 'ENQ', 'ACK', 'BEL', 'BS', 'HT', 'LF', 'VT', 'FF',
  'CR', 'SO', 'SI', 'DLE', 'DC1', 'DC2', 'DC3', 'DC4', 'NAK', 'SYN', 'ETB', 'CAN', 'EM',
  'SUB', 'ESC', 'FS', 'GS', 'RS', 'US',
}

--- Characters drawn as nothing (Unicode Cf, Zl, Zp, variation selectors, fillers), apart from
--- the bidi controls; the same table as inert.rs's `INVISIBLE`.
local INVISIBLE = {
  { 0x00AD, 0x00AD }, { 0x034F, 0x034F }, { 0x0600, 0x0605 }, { 0x06DD, 0x06DD },
  { 0x070F, 0x070F }, { 0x08E2, 0x08E2 }, { 0x115F, 0x1160 }, { 0x17B4, 0x17B5 },
  { 0x180B, 0x180F }, { 0x200B, 0x200D }, { 0x2028, 0x2029 }, { 0x2060, 0x2064 },
  { 0x206A, 0x206F }, { 0x3164, 0x3164 }, { 0xFE00, 0xFE0F }, { 0xFEFF, 0xFEFF },
  { 0xFFA0, 0xFFA0 }, { 0xFFF9, 0xFFFB }, { 0x110BD, 0x110BD }, { 0x110CD, 0x110CD },
  { 0x13430, 0x1343F }, { 0x1BCA0, 0x1BCA3 }, { 0x1D173, 0x1D17A }, { 0xE0000, 0xE007F },
  { 0xE0100, 0xE01EF },
}

--- True when code point `code` is hidden: a control, a bidi control or invisible.
local function hidden(code)
  if code == 0x09 or (code >= 0x20 and code <= 0x7E) or (code >= 0xA0 and code <= 0xAC) then
    return false
  end
  if code <= 0x1F or (code >= 0x7F and code <= 0x9F) then
    return true
  end
  -- Unicode TR#9 explicit formatting characters and the implicit marks.
  if (code >= 0x202A and code <= 0x202E) or (code >= 0x2066 and code <= 0x2069)
    or code == 0x200E or code == 0x200F or code == 0x061C then
    return true
  end
  for _, range in ipairs(INVISIBLE) do
    if code >= range[1] and code <= range[2] then
      return true
    end
  end
  return false
end

--- The visible stand-in for hidden code point `code`.
local function escape_of(code)
  if C0_NAMES[code] then
    return '<' .. C0_NAMES[code] .. '>'
  elseif code == 0x7F then
    return '<DEL>'
  end
  return string.format('<U+%04X>', code)
end

--- Decodes the UTF-8 sequence at byte `i` of `s`: its code point and length, or nil when the
--- bytes there are not a valid, shortest-form sequence (RFC 3629 §3).
local function decode(s, i)
  local b = s:byte(i)
  local len, code, min
  if b < 0x80 then
    return b, 1
  elseif b >= 0xC2 and b <= 0xDF then
    len, code, min = 2, b - 0xC0, 0x80
  elseif b >= 0xE0 and b <= 0xEF then
    len, code, min = 3, b - 0xE0, 0x800
  elseif b >= 0xF0 and b <= 0xF4 then
    len, code, min = 4, b - 0xF0, 0x10000
  else
    return nil
  end
  for k = 1, len - 1 do
    local c = s:byte(i + k)
    if not c or c < 0x80 or c > 0xBF then
      return nil
    end
    code = code * 64 + (c - 0x80)
  end
  if code < min or code > 0x10FFFF or (code >= 0xD800 and code <= 0xDFFF) then
    return nil
  end
  return code, len
end

--- `text` with every hidden character escaped, and whether any was.
---@param text string
---@return string shown, boolean found
function M.text(text)
  local out, found, i = {}, false, 1
  while i <= #text do
    local code, len = decode(text, i)
    if not code then
      out[#out + 1] = string.format('<0x%02X>', text:byte(i))
      found, i = true, i + 1
    elseif hidden(code) then
      out[#out + 1] = escape_of(code)
      found, i = true, i + len
    else
      out[#out + 1] = text:sub(i, i + len - 1)
      i = i + len
    end
  end
  return table.concat(out), found
end

--- [`M.text`] for a statusline, winbar or tabline: `%` doubled so the text cannot be read as
--- a `%` item (`:help 'statusline'`).
---@param text string
---@return string
function M.statusline(text)
  return (M.text(text):gsub('%%', '%%%%'))
end

return M
