@@codec@@

-- the entry function, sent to the program (fd 3) and answered from its reply (fd 4): decoded into the spec's own type
pragma Ada_2022;
with Reward_Split_Wire;
package body @@package@@ is
   function @@entry@@ @@open@@@@params@@@@close@@ return @@ret@@ is
      Reward_Split_Call, Reward_Split_Value : aliased Reward_Split_Wire.Buffer;
      Reward_Split_Replies : Reward_Split_Wire.Reader := (Fd => 4, others => <>);
      Reward_Split_Tag : Character;
   begin
      Reward_Split_Wire.Append (Reward_Split_Call, Reward_Split_Wire.Counted ('C', 0@@count@@));
@@put@@
      Reward_Split_Wire.Send (3, Reward_Split_Call);
      Reward_Split_Tag := Reward_Split_Wire.Get_Char (Reward_Split_Replies);
      if Reward_Split_Tag = 'X' then
         declare
            Name : constant String := Reward_Split_Wire.Get_String (Reward_Split_Replies);
         begin
            raise Program_Error with "the program raised " & Name & ": "
              & Reward_Split_Wire.Get_String (Reward_Split_Replies);
         end;
      elsif Reward_Split_Tag /= 'R' then
         raise Program_Error with "the program's reply is not a value";
      end if;
      Reward_Split_Wire.Get_Value (Reward_Split_Replies, Reward_Split_Value);
      -- the arguments after the call: `in` parameters, which it cannot change
      if Reward_Split_Wire.Get_Count (Reward_Split_Replies, 'l') /= 0@@count@@ then
         raise Program_Error with "the program's reply holds another number of arguments";
      end if;
      for Argument in 1 .. 0@@count@@ loop
         Reward_Split_Wire.Get_Value (Reward_Split_Replies, Reward_Split_Call);
      end loop;
      -- every byte its value's ('Input raises End_Error where they end too soon, Constraint_Error on a bound or a
      -- discriminant out of its range)
      return Reward_Split_Result : constant @@ret@@ := @@ret@@'Input (Reward_Split_Value'Access) do
         if not Reward_Split_Wire.Whole (Reward_Split_Value) then
            raise Constraint_Error with "the program's reply is longer than its value";
         end if;
      end return;
   end @@entry@@;
end @@package@@;
