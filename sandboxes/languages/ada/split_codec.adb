-- The wire of docs/guards.md ("Values across the pipe") for Ada: each argument and result crosses as one `y` value
-- that holds its type's own stream representation ('Output on one side, 'Input on the other), so records, arrays,
-- Unbounded_Strings and containers cross as the prompt's spec declares them, with no code of the program's.
with Ada.Streams; use Ada.Streams;
package Reward_Split_Wire is
   type Bytes_Access is access Stream_Element_Array;
   -- a value's bytes: 'Output writes them, 'Input reads them (End_Error where they end too soon)
   type Buffer is new Root_Stream_Type with record
      Data : Bytes_Access := new Stream_Element_Array (1 .. 64);
      Last : Stream_Element_Offset := 0;
      Next : Stream_Element_Offset := 1;
   end record;
   overriding procedure Read (S : in out Buffer; Item : out Stream_Element_Array; Last : out Stream_Element_Offset);
   overriding procedure Write (S : in out Buffer; Item : Stream_Element_Array);
   procedure Clear (S : in out Buffer);
   function Whole (S : Buffer) return Boolean is (S.Next = S.Last + 1);  -- every byte read
   procedure Append (S : in out Buffer; Text : String);
   function Counted (Tag : Character; Count : Natural) return String;
   procedure Put_Value (Message : in out Buffer; Value : Buffer);   -- y<length>:<bytes>
   procedure Put_String (Message : in out Buffer; Text : String);   -- s<length>:<text>
   procedure Send (Fd : Integer; Message : Buffer);
   -- a descriptor read through a buffer; End_Error at its end, Constraint_Error on what the wire does not say
   type Reader is record
      Fd : Integer;
      Data : Stream_Element_Array (1 .. 4096);
      Last : Stream_Element_Offset := 0;
      Next : Stream_Element_Offset := 1;
   end record;
   function At_End (R : in out Reader) return Boolean;
   function Get_Char (R : in out Reader) return Character;
   function Get_Count (R : in out Reader; Tag : Character) return Natural;   -- <tag><decimal>:
   procedure Get_Value (R : in out Reader; Value : in out Buffer);
   function Get_String (R : in out Reader) return String;
   type Stream_Access is access all Root_Stream_Type'Class;
   function Next_Value (R : in out Reader) return Stream_Access;   -- the next `y` value, for 'Input
end Reward_Split_Wire;

with Ada.IO_Exceptions;
with Interfaces.C; use Interfaces.C;
with System;
package body Reward_Split_Wire is
   function C_Write (Fd : int; Data : System.Address; Count : size_t) return long
     with Import, Convention => C, External_Name => "write";
   function C_Read (Fd : int; Data : System.Address; Count : size_t) return long
     with Import, Convention => C, External_Name => "read";

   overriding procedure Read (S : in out Buffer; Item : out Stream_Element_Array; Last : out Stream_Element_Offset) is
      Count : constant Stream_Element_Offset := Stream_Element_Offset'Min (Item'Length, S.Last - S.Next + 1);
   begin
      Item (Item'First .. Item'First + Count - 1) := S.Data (S.Next .. S.Next + Count - 1);
      S.Next := S.Next + Count;
      Last := Item'First + Count - 1;
   end Read;

   overriding procedure Write (S : in out Buffer; Item : Stream_Element_Array) is
   begin
      if S.Last + Item'Length > S.Data'Last then
         declare
            Grown : constant Bytes_Access :=
              new Stream_Element_Array (1 .. 2 * (S.Last + Item'Length));
         begin
            Grown (1 .. S.Last) := S.Data (1 .. S.Last);
            S.Data := Grown;
         end;
      end if;
      S.Data (S.Last + 1 .. S.Last + Item'Length) := Item;
      S.Last := S.Last + Item'Length;
   end Write;

   procedure Clear (S : in out Buffer) is
   begin
      S.Last := 0;
      S.Next := 1;
   end Clear;

   procedure Append (S : in out Buffer; Text : String) is
      Bytes : Stream_Element_Array (1 .. Text'Length);
   begin
      for I in Text'Range loop
         Bytes (Stream_Element_Offset (I - Text'First + 1)) := Character'Pos (Text (I));
      end loop;
      Write (S, Bytes);
   end Append;

   function Counted (Tag : Character; Count : Natural) return String is
      Image : constant String := Count'Image;
   begin
      return Tag & Image (Image'First + 1 .. Image'Last) & ":";
   end Counted;

   procedure Put_Value (Message : in out Buffer; Value : Buffer) is
   begin
      Append (Message, Counted ('y', Natural (Value.Last)));
      Write (Message, Value.Data (1 .. Value.Last));
   end Put_Value;

   procedure Put_String (Message : in out Buffer; Text : String) is
   begin
      Append (Message, Counted ('s', Text'Length) & Text);
   end Put_String;

   procedure Send (Fd : Integer; Message : Buffer) is
      Sent : Stream_Element_Offset := 0;
      Wrote : long;
   begin
      while Sent < Message.Last loop
         Wrote := C_Write (int (Fd), Message.Data (Sent + 1)'Address, size_t (Message.Last - Sent));
         if Wrote <= 0 then
            raise Ada.IO_Exceptions.End_Error with "the other side is gone";
         end if;
         Sent := Sent + Stream_Element_Offset (Wrote);
      end loop;
   end Send;

   function At_End (R : in out Reader) return Boolean is
      Got : long;
   begin
      if R.Next > R.Last then
         Got := C_Read (int (R.Fd), R.Data'Address, R.Data'Length);
         if Got <= 0 then
            return True;
         end if;
         R.Last := Stream_Element_Offset (Got);
         R.Next := 1;
      end if;
      return False;
   end At_End;

   function Get_Char (R : in out Reader) return Character is
   begin
      if At_End (R) then
         raise Ada.IO_Exceptions.End_Error with "the other side ended mid-message";
      end if;
      R.Next := R.Next + 1;
      return Character'Val (R.Data (R.Next - 1));
   end Get_Char;

   function Get_Count (R : in out Reader; Tag : Character) return Natural is
      Count : Natural := 0;
      Char : Character;
   begin
      if Get_Char (R) /= Tag then
         raise Constraint_Error with "expected " & Tag & " on the wire";
      end if;
      loop
         Char := Get_Char (R);
         exit when Char = ':';
         if Char not in '0' .. '9' then
            raise Constraint_Error with "a count that is not a number";
         end if;
         Count := Count * 10 + (Character'Pos (Char) - Character'Pos ('0'));
      end loop;
      return Count;
   end Get_Count;

   procedure Get_Value (R : in out Reader; Value : in out Buffer) is
      Count : constant Natural := Get_Count (R, 'y');
      Byte : Stream_Element_Array (1 .. 1);
   begin
      Clear (Value);
      for I in 1 .. Count loop
         Byte (1) := Character'Pos (Get_Char (R));
         Write (Value, Byte);
      end loop;
   end Get_Value;

   function Get_String (R : in out Reader) return String is
      Text : String (1 .. Get_Count (R, 's'));
   begin
      for Char of Text loop
         Char := Get_Char (R);
      end loop;
      return Text;
   end Get_String;

   function Next_Value (R : in out Reader) return Stream_Access is
      Value : constant Stream_Access := new Buffer;
   begin
      Get_Value (R, Buffer (Value.all));
      return Value;
   end Next_Value;
end Reward_Split_Wire;
